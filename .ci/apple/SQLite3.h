// The SDK's SQLite3 module is the system's sqlite3.h.
#include <sqlite3.h>
