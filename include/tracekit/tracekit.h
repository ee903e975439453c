/* tracekit — read, validate, write, convert and analyze execution traces. */
#ifndef TRACEKIT_TRACEKIT_H
#define TRACEKIT_TRACEKIT_H

/* 0.x: a new minor version may change the command line and its JSON
 * (CHANGELOG.md); tests/unit/docs_test.sh keeps these, CMakeLists.txt, the
 * man page and the changelog on one version. */
#define TRACEKIT_VERSION_MAJOR 0
#define TRACEKIT_VERSION_MINOR 2
#define TRACEKIT_VERSION_PATCH 0
#define TRACEKIT_VERSION_STRING "0.2.0"

#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/sink.h>
#include <tracekit/output.h>
#include <tracekit/format.h>
#include <tracekit/select.h>
#include <tracekit/cacheray.h>
#include <tracekit/cachesim.h>
#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>
#include <tracekit/ucir.h>
#include <tracekit/ucir_replay.h>
#include <tracekit/ucir_export.h>
#include <tracekit/xray.h>
#include <tracekit/xray_account.h>
#include <tracekit/xray_stack.h>
#include <tracekit/xray_graph.h>
#include <tracekit/xray_export.h>
#include <tracekit/xray_map.h>
#include <tracekit/xray_yaml.h>

#ifdef __cplusplus
extern "C" {
#endif
const char *tk_version(void);
#ifdef __cplusplus
}
#endif
#endif
