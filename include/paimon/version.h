/*
 * paimon/version.h — the library's version, its ABI version and the export
 * macro of the public API.
 *
 * PM_VERSION_MAJOR/MINOR/PATCH and PM_VERSION describe the release;
 * PM_ABI_VERSION is the number in the shared library's soname
 * (`libpaimon.so.<PM_ABI_VERSION>`), raised whenever a change breaks
 * programs linked against an older libpaimon.  The macros say what a
 * program was compiled against; pm_version() and pm_abi_version() say what
 * it runs against.  The build reads these numbers from this file (soname,
 * pkg-config version), so they are the one place to change them.
 *
 * PM_API marks every public function.  libpaimon is compiled with hidden
 * visibility, so the shared library exports exactly the declarations that
 * carry it.
 */
#ifndef PAIMON_VERSION_H
#define PAIMON_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define PM_VERSION_MAJOR 0
#define PM_VERSION_MINOR 1
#define PM_VERSION_PATCH 0
#define PM_VERSION "0.1.0"
#define PM_ABI_VERSION 0

#if defined(__GNUC__) || defined(__clang__)
#define PM_API __attribute__((visibility("default")))
#else
#define PM_API
#endif

/* The running library's version, e.g. "0.1.0"; a static string. */
PM_API const char *pm_version(void);
/* The running library's ABI version (its soname number). */
PM_API int pm_abi_version(void);

#ifdef __cplusplus
}
#endif
#endif
