#ifndef FIXTURE_DATA_ENTRY_H
#define FIXTURE_DATA_ENTRY_H
/// The plugin entry's name, given to a data object.
extern const unsigned char swift_plugin_entry[64];
#endif
