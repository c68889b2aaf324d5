// A library whose `swift_plugin_entry` is data, not a function: a host that called it would jump
// into a page that is not executable and die of SIGSEGV. The host must refuse it without calling it.
#include "FixtureDataEntry.h"

const unsigned char swift_plugin_entry[64] = { 0xFF, 0xFF, 0xFF, 0xFF };
