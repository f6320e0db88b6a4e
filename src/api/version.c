/*
 * api/version.c — the running library's version and ABI version
 * (paimon/version.h holds the numbers).
 */
#include "paimon/version.h"

const char *pm_version(void)
{
    return PM_VERSION;
}

int pm_abi_version(void)
{
    return PM_ABI_VERSION;
}
