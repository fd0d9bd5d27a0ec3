//===- Commands.h - the infc subcommands ------------------------*- C++ -*-===//
#ifndef INFC_TOOLS_INFC_COMMANDS_H
#define INFC_TOOLS_INFC_COMMANDS_H

#include <string>
#include <vector>

namespace infc {
using Args = std::vector<std::string>;
int compileCommand(const Args &args, const char *argv0);
int inspectCommand(const Args &args);
int runCommand(const Args &args);
int benchCommand(const Args &args);
int generateCommand(const Args &args);
int verifyCommand(const Args &args, const char *argv0);
/// infc bench --per-node: the `top` kernels of a trace by time, over runs >= firstRun.
bool printPerNode(const std::string &tracePath, int64_t firstRun, size_t top, std::string &error);
/// Prints `infc: error: message` on one line; returns the exit code 1.
int fail(const std::string &message);
} // namespace infc

#endif // INFC_TOOLS_INFC_COMMANDS_H
