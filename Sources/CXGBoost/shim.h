#ifndef ACCELKIT_CXGBOOST_SHIM_H
#define ACCELKIT_CXGBOOST_SHIM_H
#include <xgboost/c_api.h>
#endif
