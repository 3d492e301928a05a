#include "fuzz/contract.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "skograph/cli/commands.hpp"

namespace skograph::fuzz {

namespace {

// A folder of this process for the input files (libFuzzer's -fork and -jobs run several),
// removed with what it holds when the process exits normally.
struct ScratchFolder {
  std::string path;
  ScratchFolder() {
    char pattern[] = "/tmp/skograph_fuzz_XXXXXX";
    const char* made = ::mkdtemp(pattern);
    if (made == nullptr) std::abort();
    path = made;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

const std::string& scratch_folder() {
  static const ScratchFolder folder;
  return folder.path;
}

[[noreturn]] void broken(const std::string& what, int status, const std::string& out,
                         const std::string& err) {
  std::fprintf(stderr,
               "contract broken: %s\nexit status %d\nstdout (%zu bytes): %.400s\nstderr: %.2000s\n",
               what.c_str(), status, out.size(), out.c_str(), err.c_str());
  std::abort();
}

}  // namespace

int run_and_check(const Target& target, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_folder() + "/input" + target.extension;
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  for (const auto& [name, text] : target.companions)
    std::ofstream(scratch_folder() + "/" + name, std::ios::binary | std::ios::trunc) << text;
  std::vector<std::string> arguments;
  for (std::string argument : target.arguments) {
    if (argument == "{}") argument = path;
    if (argument.rfind("{folder}", 0) == 0) argument = scratch_folder() + argument.substr(8);
    arguments.push_back(argument);
  }
  std::ostringstream out, err;
  const int status = cli::run(arguments, out, err);
  const std::string out_text = out.str(), err_text = err.str();
  if (status != 0 && status != 2) broken("exit status neither 0 nor 2", status, out_text, err_text);
  if (status == 2) {
    if (!out_text.empty())
      broken("output on stdout with exit status 2", status, out_text, err_text);
    if (err_text.empty() || err_text.find('\n') != err_text.size() - 1)
      broken("stderr is not exactly one line", status, out_text, err_text);
    const std::string reported =
        target.reported.empty() ? path : scratch_folder() + target.reported.substr(8);
    const std::string expected = "skograph " + arguments[0] + ": " + reported;
    if (err_text.rfind(expected, 0) != 0)
      broken("the line does not start with '" + expected + "'", status, out_text, err_text);
    for (std::size_t k = 0; k + 1 < err_text.size(); ++k) {
      const unsigned char byte = static_cast<unsigned char>(err_text[k]);
      if (byte < 0x20 || byte == 0x7F)
        broken("raw control byte in the line", status, out_text, err_text);
    }
  }
  return 0;
}

}  // namespace skograph::fuzz
