// The contract every fuzz target checks on every input: the command exits 0 or 2; on 2
// nothing is on stdout and stderr is exactly one line "skograph COMMAND: FILE..." naming the input
// file (or the model that reads it: Target::reported), with no raw control byte. Anything else
// aborts, which libFuzzer reports as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skograph::fuzz {

struct Target {
  std::string extension;               // of the input file: ".dot", ".urdf", ...
  std::vector<std::string> arguments;  // the command line, "{}" standing for the input file
                                       // and "{folder}" for the folder it is written to
  // Files written beside the input (name, text), such as a model that names the input.
  std::vector<std::pair<std::string, std::string>> companions = {};
  // The file the error line names first when not the input ("{folder}/NAME": a companion model
  // that reads the input, naming it after its own line).
  std::string reported = {};
};

// Writes the bytes to a file with the target's extension, runs the command in this process
// (cli::run with string streams) and checks the contract; aborts with a description when broken.
int run_and_check(const Target& target, const std::uint8_t* data, std::size_t size);

}  // namespace skograph::fuzz
