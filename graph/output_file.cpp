#include "skograph/graph/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "skograph/graph/digraph.hpp"

namespace skograph {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBufferBytes = 1 << 16;

// The process's umask, read once (reading it means setting it). mkstemp creates files 0600; new
// outputs get the usual 0666 & ~umask.
mode_t process_umask() {
  static const mode_t mask = [] {
    const mode_t old = umask(0);
    umask(old);
    return old;
  }();
  return mask;
}

// The descriptor a name stands for: "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N.
std::optional<int> named_descriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string number = path.substr(prefix.size());
    if (number.size() > 6 || number.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoi(number);
  }
  return std::nullopt;
}

// The end of a chain of symbolic links (relative targets against the link's directory).
fs::path final_target(const std::string& path) {
  fs::path current = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(current, error);
    if (error || !fs::is_symlink(status)) return current;
    const fs::path target = fs::read_symlink(current, error);
    if (error) throw OutputError(path, error.message());
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  throw OutputError(path, std::strerror(ELOOP));
}

}  // namespace

OutputError::OutputError(const std::string& path, const std::string& reason)
    : Error(printable(path) + ": cannot write: " + reason), path_(path) {}

bool is_standard_output(const std::string& path) {
  return named_descriptor(path) == 1;
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path.empty()) throw OutputError(path, "no file name");
  if (const std::optional<int> descriptor = named_descriptor(path)) {
    descriptor_ = *descriptor;
    if (fcntl(descriptor_, F_GETFD) < 0) throw OutputError(path, std::strerror(errno));
    return;
  }
  const fs::path target = final_target(path);
  std::error_code error;
  const fs::file_status status = fs::status(target, error);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    if (fs::is_directory(status)) throw OutputError(path, "it is a directory");
    // A device, FIFO or socket: written in place, never replaced.
    descriptor_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (descriptor_ < 0) throw OutputError(path, std::strerror(errno));
    owns_descriptor_ = true;
    return;
  }
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temporary = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
  descriptor_ = mkstemp(temporary.data());
  if (descriptor_ < 0) throw OutputError(path, std::strerror(errno));
  owns_descriptor_ = true;
  temporary_ = temporary;
  target_ = target.string();
  // An existing file keeps its permissions; a new one gets 0666 & ~umask.
  struct stat existing {};
  const mode_t mode = ::stat(target_.c_str(), &existing) == 0 ? (existing.st_mode & 07777)
                                                              : (0666 & ~process_umask());
  fchmod(descriptor_, mode);
}

OutputFile::~OutputFile() {
  if (owns_descriptor_ && descriptor_ >= 0) ::close(descriptor_);
  if (!temporary_.empty() && !committed_) ::unlink(temporary_.c_str());
}

void OutputFile::write(std::string_view bytes) {
  if (finished_) throw OutputError(path_, "already complete");
  buffer_.append(bytes);
  if (buffer_.size() >= kBufferBytes) flush();
}

void OutputFile::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t written = ::write(descriptor_, buffer_.data() + done, buffer_.size() - done);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw OutputError(path_, std::strerror(errno));
    }
    done += static_cast<std::size_t>(written);
  }
  buffer_.clear();
}

void OutputFile::finish_writing() {
  if (finished_) return;
  flush();
  if (owns_descriptor_) {
    const int descriptor = descriptor_;
    descriptor_ = -1;
    if (::close(descriptor) != 0) throw OutputError(path_, std::strerror(errno));
  }
  finished_ = true;
}

void OutputFile::commit() {
  if (committed_) return;
  finish_writing();
  if (!temporary_.empty() && ::rename(temporary_.c_str(), target_.c_str()) != 0)
    throw OutputError(path_, std::strerror(errno));
  committed_ = true;
}

void write_output_file(const std::string& path, std::string_view bytes) {
  OutputFile file(path);
  file.write(bytes);
  file.commit();
}

void write_output_files(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::unique_ptr<OutputFile>> outputs;
  for (const auto& [path, text] : files) {
    outputs.push_back(std::make_unique<OutputFile>(path));
    outputs.back()->write(text);
  }
  for (auto& output : outputs) output->finish_writing();
  for (auto& output : outputs) output->commit();
}

}  // namespace skograph
