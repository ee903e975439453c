/* The option spellings of LLVM's tools (LLVM's cl parser) turned into
 * getopt_long's. */
#ifndef TK_CLI_SPELLING_H
#define TK_CLI_SPELLING_H

#include <getopt.h>

/* A copy of argv (argv[0] and a final NULL included) in which this
 * command's options written the LLVM way are spelled for getopt_long:
 *   -name[=V]     -> --name[=V]  (name: 2+ letters, a long option here)
 *   -x=V, --x=V   -> -x V        (x: a one-letter option taking a value)
 *   --x           -> -x          (getopt_long would read an abbreviation)
 *   FLAG=true|1   -> FLAG;  FLAG=false|0 -> its opposite (--no-name, or
 *                    --name for no-name) if this command has one, else
 *                    nothing (FLAG: an option without a value, any form)
 * Short clusters (-kd), operands, '-', the value of an option that takes
 * one and everything after '--' are copied as they are. *argc_io is
 * updated; the result is one allocation (free it, strings included) or
 * NULL when out of memory. */
char **cli_spell_llvm(int *argc_io, char *const argv[], const char *shortopts,
                      const struct option *longopts);

#endif
