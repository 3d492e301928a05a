// The contract every fuzz target checks on every input: the command exits 0 or 2; on 2
// nothing is on stdout and stderr is exactly one line "skograph COMMAND: FILE..." naming the input
// file, with no raw control byte. Anything else aborts, which libFuzzer reports as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace skograph::fuzz {

struct Target {
  std::string extension;               // of the input file: ".dot", ".urdf", ...
  std::vector<std::string> arguments;  // the command line, "{}" standing for the input file
};

// Writes the bytes to a file with the target's extension, runs the command in this process
// (cli::run with string streams) and checks the contract; aborts with a description when broken.
int run_and_check(const Target& target, const std::uint8_t* data, std::size_t size);

}  // namespace skograph::fuzz
