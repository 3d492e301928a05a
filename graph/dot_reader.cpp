// The DOT reader behind parse_dot (graph/digraph.hpp): a lexer and a recursive-descent parser of
// the Graphviz DOT language (https://graphviz.org/doc/info/lang.html), linear in the text.
//
// Why not a library: boost::read_graphviz takes 3.7 s and Graphviz's own agread 4.6 s for a
// 10^6-edge tree on this machine (the goal is the whole `graph` command in under 3 s), and
// neither gives the line of an error; Boost's parser also recurses without limit into nested
// subgraphs (a stack overflow at 10^4 levels). This reader gives every error its line,
// limits nesting, and keeps nodes in order of first appearance and edges in file order.
//
// What it reads: [strict] digraph [ID] { stmt_list }, with node, edge (chains a -> b -> c, and
// subgraphs as operands: {a b} -> c gives a->c, b->c), attribute (graph/node/edge [...]) and
// ID = ID statements, subgraphs, ports (a:p:n is node a), quoted strings (escaped quotes,
// line continuations, concatenation with +), HTML strings <...>, numerals, comments (//, /* */,
// and # lines). Attributes are read and ignored.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph {

namespace {

constexpr int kMaxNesting = 1000;  // subgraphs inside subgraphs

enum class Token {
  kEnd,
  kId,
  kLeftBrace,
  kRightBrace,
  kLeftBracket,
  kRightBracket,
  kEquals,
  kSemicolon,
  kComma,
  kColon,
  kArrow,
  kUndirected,
  kPlus
};

struct Lexeme {
  Token token = Token::kEnd;
  std::string_view text;  // the id's characters (quoted strings: without the quotes, raw)
  bool quoted = false;    // a quoted string (needs unescaping; never a keyword)
  int line = 1;
};

bool id_start(unsigned char c) {
  return std::isalpha(c) || c == '_' || c >= 0x80;
}
bool id_char(unsigned char c) {
  return std::isalnum(c) || c == '_' || c >= 0x80;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  const Lexeme& peek() {
    if (!peeked_) {
      next_ = scan();
      peeked_ = true;
    }
    return next_;
  }
  Lexeme take() {
    peek();
    peeked_ = false;
    return next_;
  }
  [[noreturn]] void fail(int line, const std::string& problem) const {
    throw InputError(source_, line, problem);
  }

 private:
  Lexeme scan() {
    skip_blanks();
    Lexeme lexeme;
    lexeme.line = line_;
    if (at_ >= text_.size()) return lexeme;
    const unsigned char c = text_[at_];
    auto single = [&](Token token) {
      lexeme.token = token;
      lexeme.text = text_.substr(at_++, 1);
      return lexeme;
    };
    switch (c) {
      case '{':
        return single(Token::kLeftBrace);
      case '}':
        return single(Token::kRightBrace);
      case '[':
        return single(Token::kLeftBracket);
      case ']':
        return single(Token::kRightBracket);
      case '=':
        return single(Token::kEquals);
      case ';':
        return single(Token::kSemicolon);
      case ',':
        return single(Token::kComma);
      case ':':
        return single(Token::kColon);
      case '+':
        return single(Token::kPlus);
      case '"':
        return quoted_string(lexeme);
      case '<':
        return html_string(lexeme);
      default:
        break;
    }
    if (c == '-' && at_ + 1 < text_.size() && (text_[at_ + 1] == '>' || text_[at_ + 1] == '-')) {
      lexeme.token = text_[at_ + 1] == '>' ? Token::kArrow : Token::kUndirected;
      lexeme.text = text_.substr(at_, 2);
      at_ += 2;
      return lexeme;
    }
    const std::size_t start = at_;
    if (id_start(c)) {
      while (at_ < text_.size() && id_char(static_cast<unsigned char>(text_[at_]))) ++at_;
    } else if (std::isdigit(c) || c == '.' ||
               c == '-') {  // a numeral: [-]?(.[0-9]+|[0-9]+(.[0-9]*)?)
      if (c == '-') ++at_;
      bool digits = false;
      while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
        ++at_;
        digits = true;
      }
      if (at_ < text_.size() && text_[at_] == '.') {
        ++at_;
        while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
          ++at_;
          digits = true;
        }
      }
      if (!digits)
        fail(line_, "malformed DOT: '" + printable(text_.substr(start, at_ - start)) +
                        "' is not a number or an identifier");
    } else {
      fail(line_, "malformed DOT: unexpected character '" + printable(text_.substr(at_, 1)) + "'");
    }
    lexeme.token = Token::kId;
    lexeme.text = text_.substr(start, at_ - start);
    return lexeme;
  }

  void skip_blanks() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_;
        ++at_;
        line_start_ = at_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++at_;
      } else if (c == '#' && at_ == line_start_) {  // a C preprocessor line
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '/') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '*') {
        const int line = line_;
        const std::size_t end = text_.find("*/", at_ + 2);
        if (end == std::string_view::npos) fail(line, "malformed DOT: a /* comment is not closed");
        line_ +=
            static_cast<int>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(at_),
                                        text_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
        at_ = end + 2;
      } else {
        return;
      }
    }
  }

  Lexeme quoted_string(Lexeme& lexeme) {
    const int line = line_;
    const std::size_t start = ++at_;
    while (at_ < text_.size() && text_[at_] != '"') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
      if (text_[at_] == '\n') ++line_;
      ++at_;
    }
    if (at_ >= text_.size()) fail(line, "malformed DOT: a quoted string is not closed");
    lexeme.token = Token::kId;
    lexeme.quoted = true;
    lexeme.text = text_.substr(start, at_ - start);
    ++at_;
    return lexeme;
  }

  Lexeme html_string(Lexeme& lexeme) {
    const int line = line_;
    const std::size_t start = at_;
    int depth = 0;
    do {
      if (text_[at_] == '<') ++depth;
      if (text_[at_] == '>') --depth;
      if (text_[at_] == '\n') ++line_;
      ++at_;
    } while (at_ < text_.size() && depth > 0);
    if (depth > 0) fail(line, "malformed DOT: an HTML string <...> is not closed");
    lexeme.token = Token::kId;
    lexeme.text = text_.substr(start, at_ - start);
    return lexeme;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t at_ = 0, line_start_ = 0;
  int line_ = 1;
  bool peeked_ = false;
  Lexeme next_;
};

bool keyword(const Lexeme& lexeme, std::string_view word) {
  if (lexeme.token != Token::kId || lexeme.quoted || lexeme.text.size() != word.size())
    return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(lexeme.text[i])) != word[i]) return false;
  return true;
}

// A quoted string's value: \" is ", a backslash-newline continues the line; other escapes stay.
std::string unquote(std::string_view raw) {
  std::string value;
  value.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '"' || raw[i + 1] == '\n')) {
      if (raw[i + 1] == '"') value += '"';
      ++i;
      continue;
    }
    if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '\r' && i + 2 < raw.size() &&
        raw[i + 2] == '\n') {
      i += 2;
      continue;
    }
    value += raw[i];
  }
  return value;
}

class DotParser {
 public:
  DotParser(std::string_view text, const std::string& source) : lexer_(text, source) {
    const std::size_t guess = text.size() / 16 + 16;  // about one node per 16 characters
    graph_.reserve(static_cast<int>(guess), 0);
    edges_.reserve(guess);
  }

  void parse() {
    Lexeme first = lexer_.take();
    if (keyword(first, "strict")) {
      strict_ = true;
      first = lexer_.take();
    }
    if (keyword(first, "graph"))
      lexer_.fail(first.line, "undirected graph: skograph needs a DOT 'digraph' (edges '->')");
    if (!keyword(first, "digraph"))
      lexer_.fail(first.line, first.token == Token::kEnd
                                  ? "empty graph: the digraph has no nodes"
                                  : "malformed DOT: expected 'digraph', found " + describe(first));
    if (lexer_.peek().token == Token::kId) read_id();  // the graph's name
    expect(Token::kLeftBrace, "'{' to open the digraph");
    statements(nullptr, 0);
    expect(Token::kRightBrace, "'}' to close the digraph");
    const Lexeme rest = lexer_.take();
    if (rest.token != Token::kEnd)
      lexer_.fail(rest.line, "malformed DOT: text after the digraph (one graph per file)");
  }

  // The digraph, edges checked: no self-loops, no parallel edges (merged in a strict digraph).
  Digraph build(const std::string& source) {
    if (graph_.node_count() == 0)
      throw InputError(source, 0, "empty graph: the digraph has no nodes");
    std::unordered_set<std::uint64_t> seen;
    seen.reserve(edges_.size());
    graph_.reserve(graph_.node_count(), static_cast<int>(edges_.size()));
    for (const PendingEdge& e : edges_) {
      if (e.from == e.to)
        throw InputError(source, e.line,
                         "self-loop at node '" + printable(graph_.name(e.from)) + "'");
      const std::uint64_t key =
          (static_cast<std::uint64_t>(e.from) << 32) | static_cast<unsigned>(e.to);
      if (!seen.insert(key).second) {
        if (strict_) continue;  // a strict digraph merges parallel edges
        throw InputError(source, e.line,
                         "duplicate edge '" + printable(graph_.name(e.from)) + "' -> '" +
                             printable(graph_.name(e.to)) + "'");
      }
      graph_.add_edge(e.from, e.to);
    }
    return std::move(graph_);
  }

 private:
  struct PendingEdge {
    int from, to, line;
  };

  static std::string describe(const Lexeme& lexeme) {
    if (lexeme.token == Token::kEnd) return "the end of the file";
    return "'" + printable(lexeme.text) + "'";
  }

  Lexeme expect(Token token, const char* what) {
    const Lexeme lexeme = lexer_.take();
    if (lexeme.token != token)
      lexer_.fail(lexeme.line,
                  std::string("malformed DOT: expected ") + what + ", found " + describe(lexeme));
    return lexeme;
  }

  // The value of a quoted string and of the quoted strings joined to it by '+'.
  std::string concatenated(const Lexeme& first) {
    std::string value = unquote(first.text);
    while (lexer_.peek().token == Token::kPlus) {
      lexer_.take();
      const Lexeme next = expect(Token::kId, "a quoted string after '+'");
      if (!next.quoted) lexer_.fail(next.line, "malformed DOT: '+' joins quoted strings only");
      value += unquote(next.text);
    }
    return value;
  }

  // An ID (attribute names and values, graph names, ports): read and skipped.
  void read_id() {
    const Lexeme first = expect(Token::kId, "an identifier");
    if (first.quoted) concatenated(first);
  }

  int node(std::string_view name) {
    const std::optional<int> known = graph_.find(name);
    return known ? *known : graph_.add_node(std::string(name));
  }

  // A node id's name: the characters of an unquoted id, the value of a quoted one.
  int node_of(const Lexeme& id) { return id.quoted ? node(concatenated(id)) : node(id.text); }

  void attribute_lists() {
    while (lexer_.peek().token == Token::kLeftBracket) {
      lexer_.take();
      while (lexer_.peek().token != Token::kRightBracket) {
        read_id();
        if (lexer_.peek().token == Token::kEquals) {
          lexer_.take();
          read_id();
        }
        const Token separator = lexer_.peek().token;
        if (separator == Token::kComma || separator == Token::kSemicolon) lexer_.take();
        if (lexer_.peek().token == Token::kEnd)
          lexer_.fail(lexer_.peek().line, "malformed DOT: an attribute list '[' is not closed");
      }
      lexer_.take();
    }
  }

  // One operand of an edge statement: a node id (with its port) or a subgraph; its nodes.
  void operand(std::vector<int>& nodes, int depth) {
    const Lexeme& next = lexer_.peek();
    if (next.token == Token::kLeftBrace || keyword(next, "subgraph")) {
      const std::size_t first = nodes.size();
      subgraph(&nodes, depth);
      // A subgraph's nodes are a set: each once, in order of first mention.
      std::unordered_set<int> seen;
      const auto end = std::remove_if(nodes.begin() + static_cast<std::ptrdiff_t>(first),
                                      nodes.end(), [&](int v) { return !seen.insert(v).second; });
      nodes.erase(end, nodes.end());
      return;
    }
    nodes.push_back(node_of(expect(Token::kId, "a node identifier")));
    for (int part = 0; part < 2 && lexer_.peek().token == Token::kColon; ++part) {
      lexer_.take();
      read_id();  // port, compass point
    }
  }

  void subgraph(std::vector<int>* nodes, int depth) {
    const Lexeme start = lexer_.peek();
    if (depth >= kMaxNesting)
      lexer_.fail(start.line, "malformed DOT: subgraphs nested deeper than " +
                                  std::to_string(kMaxNesting) + " levels");
    if (keyword(start, "subgraph")) {
      lexer_.take();
      if (lexer_.peek().token == Token::kId) read_id();
    }
    expect(Token::kLeftBrace, "'{' to open the subgraph");
    statements(nodes, depth + 1);
    expect(Token::kRightBrace, "'}' to close the subgraph");
  }

  // stmt_list until '}' (or the end). `collected`: the nodes the statements mention (a
  // subgraph used as an edge operand), or null.
  void statements(std::vector<int>* collected, int depth) {
    std::vector<int> left, right;
    for (;;) {
      const Lexeme next = lexer_.peek();
      if (next.token == Token::kRightBrace || next.token == Token::kEnd) return;
      if (next.token == Token::kSemicolon) {
        lexer_.take();
        continue;
      }
      if (keyword(next, "graph") || keyword(next, "node") || keyword(next, "edge")) {
        lexer_.take();
        if (lexer_.peek().token != Token::kLeftBracket)
          lexer_.fail(next.line,
                      "malformed DOT: expected '[' after '" + std::string(next.text) + "'");
        attribute_lists();
        continue;
      }
      if (next.token != Token::kId && next.token != Token::kLeftBrace)
        lexer_.fail(next.line, "malformed DOT: unexpected " + describe(next));
      // ID '=' ID (a graph attribute) or an edge or node statement.
      left.clear();
      if (next.token == Token::kId && !keyword(next, "subgraph")) {
        const Lexeme id = lexer_.take();
        const std::string value = id.quoted ? concatenated(id) : std::string();
        if (lexer_.peek().token == Token::kEquals) {
          lexer_.take();
          read_id();
          continue;
        }
        left.push_back(id.quoted ? node(value) : node(id.text));
        for (int part = 0; part < 2 && lexer_.peek().token == Token::kColon; ++part) {
          lexer_.take();
          read_id();
        }
      } else {
        operand(left, depth);
      }
      if (collected) collected->insert(collected->end(), left.begin(), left.end());
      while (lexer_.peek().token == Token::kArrow || lexer_.peek().token == Token::kUndirected) {
        const Lexeme arrow = lexer_.take();
        if (arrow.token == Token::kUndirected)
          lexer_.fail(arrow.line, "malformed DOT: undirected edge '--' in a digraph (use '->')");
        right.clear();
        operand(right, depth);
        if (collected) collected->insert(collected->end(), right.begin(), right.end());
        for (const int from : left)
          for (const int to : right) edges_.push_back({from, to, arrow.line});
        left.swap(right);
      }
      attribute_lists();
    }
  }

  Lexer lexer_;
  bool strict_ = false;
  Digraph graph_;  // nodes as they appear; edges added by build()
  std::vector<PendingEdge> edges_;
};

}  // namespace

Digraph parse_dot(const std::string& text, const std::string& source) {
  check_text_bytes(text, source);
  DotParser parser(text, source);
  parser.parse();
  return parser.build(source);
}

}  // namespace skograph
