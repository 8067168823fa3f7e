#ifndef ACCELKIT_CFFTW_SHIM_H
#define ACCELKIT_CFFTW_SHIM_H
#include <fftw3.h>
#endif
