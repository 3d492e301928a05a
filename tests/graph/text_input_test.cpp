// check_text_bytes against an independent UTF-8 decoder written from the definition (code point
// from the bits, then the three rules: shortest form, no surrogates, at most U+10FFFF), over every
// one- and two-byte sequence and every three- and four-byte lead with boundary continuation bytes.
#include "skograph/graph/text_input.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"

namespace skograph {
namespace {

// True when `bytes` is exactly one well-formed UTF-8 character, by decoding it.
bool is_one_character(const std::string& bytes) {
  const auto byte = [&](std::size_t k) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[k]));
  };
  const std::size_t n = bytes.size();
  if (n == 1) return byte(0) != 0 && byte(0) < 0x80;
  std::size_t expected = 0;
  unsigned code = 0;
  if ((byte(0) & 0xE0) == 0xC0) {
    expected = 2;
    code = byte(0) & 0x1F;
  } else if ((byte(0) & 0xF0) == 0xE0) {
    expected = 3;
    code = byte(0) & 0x0F;
  } else if ((byte(0) & 0xF8) == 0xF0) {
    expected = 4;
    code = byte(0) & 0x07;
  }
  if (expected != n) return false;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return false;
    code = (code << 6) | (byte(k) & 0x3F);
  }
  const unsigned shortest = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  return code >= shortest && !(code >= 0xD800 && code <= 0xDFFF) && code <= 0x10FFFF;
}

bool accepted(const std::string& bytes) {
  try {
    check_text_bytes(bytes, "t.txt");
    return true;
  } catch (const InputError&) {
    return false;
  }
}

TEST(TextInput, AgreesWithADecoderOnEveryShortSequence) {
  for (unsigned a = 0; a < 256; ++a) {
    const std::string one(1, static_cast<char>(a));
    ASSERT_EQ(accepted(one), is_one_character(one)) << std::hex << a;
    for (unsigned b = 0; b < 256; ++b) {
      const std::string two = one + static_cast<char>(b);
      // Two bytes: one character, or two one-byte characters.
      const bool expected =
          is_one_character(two) ||
          (is_one_character(one) && is_one_character(std::string(1, static_cast<char>(b))));
      ASSERT_EQ(accepted(two), expected) << std::hex << a << " " << b;
    }
  }
  const unsigned boundary[] = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
  for (unsigned a = 0xE0; a < 0x100; ++a)
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned c : boundary)
        for (unsigned d : boundary) {
          const std::string three{static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)};
          if (a < 0xF0) {
            ASSERT_EQ(accepted(three), is_one_character(three)) << std::hex << a << b << c;
          }
          const std::string four = three + static_cast<char>(d);
          if (a >= 0xF0) {
            ASSERT_EQ(accepted(four), is_one_character(four)) << std::hex << a << b << c << d;
          }
        }
}

TEST(TextInput, PrintableKeepsTextAndEscapesEverythingElse) {
  // For every one- and two-byte string and the surrogate and out-of-range four-byte forms: the
  // result is UTF-8 text without control bytes, and it is the input itself exactly when the input
  // is such text.
  std::vector<std::string> inputs = {"\xed\xa0\x80",     "\xed\x9f\xbf",     "\xf4\x90\x80\x80",
                                     "\xf4\x8f\xbf\xbf", "\xf5\x80\x80\x80", "a\nb\tc\r"};
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b)
      inputs.push_back({static_cast<char>(a), static_cast<char>(b)});
  for (const std::string& input : inputs) {
    const std::string shown = printable(input);
    const bool plain = is_text(input) && std::none_of(input.begin(), input.end(), [](char c) {
                         return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
                       });
    ASSERT_TRUE(is_text(shown)) << shown;
    for (const char c : shown) ASSERT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7F);
    ASSERT_EQ(shown == input, plain) << shown;
  }
  EXPECT_EQ(printable("a\nb\xff\xed\xa0\x80\xc3\xa9"), "a\\nb\\xff\\xed\\xa0\\x80\xc3\xa9");
}

TEST(TextInput, NamesTheLineAndShowsTheByteEscaped) {
  const auto message = [](const std::string& text) {
    try {
      check_text_bytes(text, "f.dot");
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      return std::to_string(e.line()) + " " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("a\nb\n\xff"), "3 f.dot:3: invalid UTF-8 (byte \\xff)");
  EXPECT_EQ(message(std::string("a\n\0", 3)), "2 f.dot:2: NUL byte: not a text file");
  EXPECT_EQ(message("x\xe2\x82"),
            "1 f.dot:1: invalid UTF-8 (byte \\xe2: a character cut short by the end of the file)");
  EXPECT_EQ(message("\xef\xbb\xbf"
                    "digraph { \xc3\xa9 -> b }"),
            "accepted");
}

}  // namespace
}  // namespace skograph
