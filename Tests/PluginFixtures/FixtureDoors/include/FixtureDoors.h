#ifndef FIXTURE_DOORS_H
#define FIXTURE_DOORS_H

// What the sandbox probe fixture tries, each a door a plugin may try against its host: 0 if it
// opened, else the errno that closed it (ENOSYS for a kind it does not know).
int door_try(const char *_Nonnull kind, const char *_Nonnull target);

#endif
