#ifndef ACCELKIT_CZLIB_SHIM_H
#define ACCELKIT_CZLIB_SHIM_H
#include <zlib.h>
#endif
