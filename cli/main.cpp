#include "skograph/cli/commands.hpp"

int main(int argc, char** argv) {
  return skograph::cli::run(argc, argv);
}
