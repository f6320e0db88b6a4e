/*
 * paimon/version.h — placeholder on the api branch (the build branch owns
 * the real one): the export macro.
 */
#ifndef PAIMON_VERSION_H
#define PAIMON_VERSION_H
#define PM_API __attribute__((visibility("default")))
#endif
