// Output files that never end half-written and never replace what is not a regular file.
//
// A regular file (new, existing, or the final target of a chain of symbolic links) is written to
// a temporary in its directory and renamed over it by commit(): until then the old content stays,
// and an OutputFile destroyed without commit() removes its temporary. Anything else that exists
// (a device such as /dev/null or /dev/full, a FIFO, a socket) is written in place, as a shell
// redirection would; "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written to
// that descriptor. Every failure (ENOSPC, EPIPE, EACCES, a missing directory) is an OutputError
// "PATH: cannot write: REASON".
#pragma once

#include <stdexcept>

#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "skograph/graph/error.hpp"

namespace skograph {

class OutputError : public Error {
 public:
  OutputError(const std::string& path, const std::string& reason);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// True for the names that mean standard output ("-", /dev/stdout, /dev/fd/1, /proc/self/fd/1).
bool is_standard_output(const std::string& path);

class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Appends (buffered); throws OutputError when the bytes cannot be written.
  void write(std::string_view bytes);
  // Writes what is buffered and closes the file (a failure here leaves the target untouched).
  void finish_writing();
  // finish_writing(), then puts the file in place (renames the temporary over the target).
  void commit();
  const std::string& path() const { return path_; }

 private:
  void flush();

  std::string path_;       // as given
  std::string target_;     // the regular file renamed over (symbolic links resolved); "" in place
  std::string temporary_;  // the temporary next to target_
  std::string buffer_;
  int descriptor_ = -1;
  bool owns_descriptor_ = false;
  bool finished_ = false;
  bool committed_ = false;
};

// One whole file.
void write_output_file(const std::string& path, std::string_view bytes);
// Several files all or nothing: every file is written to its temporary first; only when all are
// written are they put in place (in order).
void write_output_files(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace skograph
