#include "skograph/io/mesh_file.hpp"

#include <tinyxml2.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"
#include "xml_input.hpp"

namespace skograph {

namespace {

// Vertices in one mesh: three per triangle at most.
constexpr std::size_t kMaxVertices = 3 * kMaxMeshTriangles;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Whitespace-separated words of a line or an element's text.
std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// Calls read(line, words) for each line of `text` that has words (lines 1-based).
template <class Read>
void for_each_line(std::string_view text, Read read) {
  int line = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    const std::vector<std::string_view> words = words_of(text.substr(start, end - start));
    start = end + 1;
    if (!words.empty()) read(line, words);
  }
}

bool number_of(std::string_view word, double& value) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size() && std::isfinite(value);
}

bool integer_of(std::string_view word, long long& value) {
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size();
}

std::string lower_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

void add_vertex(TriangleMesh& mesh, const Eigen::Vector3d& p) {
  mesh.vertices.push_back(static_cast<float>(p.x()));
  mesh.vertices.push_back(static_cast<float>(p.y()));
  mesh.vertices.push_back(static_cast<float>(p.z()));
}

void require_room(const TriangleMesh& mesh, std::size_t more, const std::string& source, int line) {
  if (mesh.triangles.size() / 3 + more > kMaxMeshTriangles)
    throw InputError(source, line,
                     "more than " + std::to_string(kMaxMeshTriangles) + " triangles in one mesh");
}

// Binary STL: the 80-byte header, the count, then per triangle a normal, three vertices (12
// little-endian floats) and 2 attribute bytes.
TriangleMesh binary_stl(std::string_view bytes, const std::string& source) {
  std::uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);
  if (count == 0) throw InputError(source, 0, "no triangles in a binary STL file");
  TriangleMesh mesh;
  require_room(mesh, count, source, 0);
  for (std::uint32_t t = 0; t < count; ++t) {
    float corner[9];
    std::memcpy(corner, bytes.data() + 84 + 50 * std::size_t{t} + 12, sizeof corner);
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d p(corner[3 * k], corner[3 * k + 1], corner[3 * k + 2]);
      if (!p.allFinite())
        throw InputError(source, 0,
                         "triangle " + std::to_string(t + 1) + " has a vertex that is not finite");
      mesh.triangles.push_back(static_cast<std::uint32_t>(mesh.vertices.size() / 3));
      add_vertex(mesh, p);
    }
  }
  return mesh;
}

TriangleMesh ascii_stl(std::string_view text, const std::string& source) {
  check_text_bytes(text, source);
  TriangleMesh mesh;
  int corners = 3, facet_line = 0;  // corners of the current facet
  for_each_line(text, [&](int line, const std::vector<std::string_view>& words) {
    if (words[0] == "facet") {
      if (corners != 3)
        throw InputError(source, facet_line, "a facet without exactly three vertices");
      facet_line = line;
      corners = 0;
      require_room(mesh, 1, source, line);
    } else if (words[0] == "vertex") {
      Eigen::Vector3d p;
      if (words.size() != 4 || !number_of(words[1], p.x()) || !number_of(words[2], p.y()) ||
          !number_of(words[3], p.z()))
        throw InputError(source, line, "a vertex is 'vertex x y z' with three finite numbers");
      if (facet_line == 0 || ++corners > 3)
        throw InputError(source, line, "a vertex outside a facet of three");
      mesh.triangles.push_back(static_cast<std::uint32_t>(mesh.vertices.size() / 3));
      add_vertex(mesh, p);
    }
  });
  if (corners != 3) throw InputError(source, facet_line, "a facet without exactly three vertices");
  if (mesh.triangles.empty()) throw InputError(source, 1, "no facet in an ASCII STL file");
  return mesh;
}

TriangleMesh stl(std::string_view bytes, const std::string& source) {
  if (bytes.size() >= 84) {
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, 4);
    if (bytes.size() == 84 + 50 * std::uint64_t{count}) return binary_stl(bytes, source);
  }
  if (bytes.substr(0, 5) == "solid") return ascii_stl(bytes, source);
  throw InputError(source, 0,
                   "neither a binary STL file (84 bytes and 50 per triangle) nor an ASCII one "
                   "(starting 'solid')");
}

TriangleMesh obj(std::string_view text, const std::string& source) {
  check_text_bytes(text, source);
  TriangleMesh mesh;
  std::vector<std::uint32_t> polygon;
  for_each_line(text, [&](int line, const std::vector<std::string_view>& words) {
    if (words[0] == "v") {
      Eigen::Vector3d p;
      if (words.size() < 4 || words.size() > 7 || !number_of(words[1], p.x()) ||
          !number_of(words[2], p.y()) || !number_of(words[3], p.z()))
        throw InputError(source, line, "a vertex is 'v x y z' with finite numbers");
      if (mesh.vertices.size() / 3 >= std::size_t{3} * kMaxMeshTriangles)
        throw InputError(source, line, "too many vertices");
      add_vertex(mesh, p);
    } else if (words[0] == "f") {
      if (words.size() < 4) throw InputError(source, line, "a face needs three vertices or more");
      const long long defined = static_cast<long long>(mesh.vertices.size() / 3);
      polygon.clear();
      for (std::size_t k = 1; k < words.size(); ++k) {
        long long index = 0;
        if (!integer_of(words[k].substr(0, words[k].find('/')), index) || index == 0)
          throw InputError(source, line,
                           "face vertex '" + printable(std::string(words[k])) +
                               "' is not a vertex number (1-based, or negative from the end)");
        if (index < 0) index += defined + 1;
        if (index < 1 || index > defined)
          throw InputError(source, line,
                           "face vertex " + std::string(words[k].substr(0, words[k].find('/'))) +
                               " names no vertex defined before it (" + std::to_string(defined) +
                               " are)");
        polygon.push_back(static_cast<std::uint32_t>(index - 1));
      }
      require_room(mesh, polygon.size() - 2, source, line);
      for (std::size_t k = 1; k + 1 < polygon.size(); ++k)
        mesh.triangles.insert(mesh.triangles.end(), {polygon[0], polygon[k], polygon[k + 1]});
    }
  });
  if (mesh.triangles.empty()) throw InputError(source, 0, "no face in an OBJ file");
  return mesh;
}

// COLLADA, the parts that make triangles (see the header).
class ColladaReader {
 public:
  ColladaReader(const tinyxml2::XMLDocument& document, std::string source)
      : source_(std::move(source)) {
    root_ = document.RootElement();
    if (!root_ || std::strcmp(root_->Name(), "COLLADA") != 0)
      throw InputError(source_, root_ ? root_->GetLineNum() : 1, "not a COLLADA document");
    in_metres_.setIdentity();
    if (const tinyxml2::XMLElement* asset = root_->FirstChildElement("asset")) {
      if (const tinyxml2::XMLElement* unit = asset->FirstChildElement("unit")) {
        if (const char* meter = unit->Attribute("meter")) {
          double value = 0.0;
          if (!number_of(meter, value) || !(value > 0.0))
            throw InputError(source_, unit->GetLineNum(), "<unit meter> is not a positive number");
          in_metres_ = Eigen::Scaling(value) * in_metres_;
        }
      }
      // <up_axis> is not applied: URDF meshes are made to look right in RViz, which ignores it
      // (and keeps <unit>).
    }
    index_ids(root_);
  }

  TriangleMesh read() {
    const tinyxml2::XMLElement* scene = visual_scene();
    if (scene) {
      for (const tinyxml2::XMLElement* node = scene->FirstChildElement("node"); node;
           node = node->NextSiblingElement("node"))
        add_node(node, in_metres_);
    } else {  // no scene: every geometry where it is
      for (const auto& [id, element] : ids_)
        if (std::strcmp(element->Name(), "geometry") == 0) add_geometry(element, in_metres_);
    }
    if (mesh_.triangles.empty()) throw InputError(source_, 0, "no triangles in the COLLADA file");
    return std::move(mesh_);
  }

 private:
  void index_ids(const tinyxml2::XMLElement* element) {
    for (; element; element = element->NextSiblingElement()) {
      if (const char* id = element->Attribute("id")) ids_.emplace(id, element);
      index_ids(element->FirstChildElement());
    }
  }

  // The element a "#id" URL names, of the given kind.
  const tinyxml2::XMLElement* target(const tinyxml2::XMLElement* from, const char* attribute,
                                     const char* kind) const {
    const char* url = from->Attribute(attribute);
    if (!url || url[0] != '#')
      throw InputError(source_, from->GetLineNum(),
                       std::string("<") + from->Name() + "> without a local " + attribute);
    const auto found = ids_.find(url + 1);
    if (found == ids_.end() || std::strcmp(found->second->Name(), kind) != 0)
      throw InputError(
          source_, from->GetLineNum(),
          std::string(attribute) + " '" + printable(url) + "' names no <" + kind + ">");
    return found->second;
  }

  const tinyxml2::XMLElement* visual_scene() const {
    if (const tinyxml2::XMLElement* scene = root_->FirstChildElement("scene"))
      if (const tinyxml2::XMLElement* instance = scene->FirstChildElement("instance_visual_scene"))
        return target(instance, "url", "visual_scene");
    if (const tinyxml2::XMLElement* library = root_->FirstChildElement("library_visual_scenes"))
      return library->FirstChildElement("visual_scene");
    return nullptr;
  }

  std::vector<double> numbers(const tinyxml2::XMLElement* element) const {
    std::vector<double> values;
    for (std::string_view word : words_of(element->GetText() ? element->GetText() : "")) {
      double value = 0.0;
      if (!number_of(word, value))
        throw InputError(source_, element->GetLineNum(),
                         "'" + printable(std::string(word)) + "' in <" + element->Name() +
                             "> is not a finite number");
      values.push_back(value);
    }
    return values;
  }

  std::vector<double> numbers(const tinyxml2::XMLElement* element, std::size_t count) const {
    std::vector<double> values = numbers(element);
    if (values.size() != count)
      throw InputError(
          source_, element->GetLineNum(),
          std::string("<") + element->Name() + "> takes " + std::to_string(count) + " numbers");
    return values;
  }

  void add_node(const tinyxml2::XMLElement* node, Eigen::Affine3d frame, int depth = 0) {
    // <instance_node> may name an ancestor: the nesting is bounded as the XML's is.
    if (depth > io::kMaxXmlNesting)
      throw InputError(source_, node->GetLineNum(),
                       "nodes nested deeper than " + std::to_string(io::kMaxXmlNesting) +
                           " levels through <instance_node>");
    for (const tinyxml2::XMLElement* child = node->FirstChildElement(); child;
         child = child->NextSiblingElement()) {
      if (++visited_ > 1'000'000)
        throw InputError(source_, child->GetLineNum(),
                         "more than 1000000 scene elements walked (through <instance_node>)");
      const std::string name = child->Name();
      if (name == "matrix") {
        const std::vector<double> m = numbers(child, 16);
        Eigen::Matrix4d matrix;
        for (int i = 0; i < 16; ++i) matrix(i / 4, i % 4) = m[static_cast<std::size_t>(i)];
        frame = frame * Eigen::Affine3d(matrix);
      } else if (name == "translate") {
        const std::vector<double> t = numbers(child, 3);
        frame = frame * Eigen::Translation3d(t[0], t[1], t[2]);
      } else if (name == "rotate") {
        const std::vector<double> r = numbers(child, 4);
        const Eigen::Vector3d axis(r[0], r[1], r[2]);
        if (axis.norm() > 0.0)
          frame = frame * Eigen::AngleAxisd(r[3] * M_PI / 180.0, axis.normalized());
      } else if (name == "scale") {
        const std::vector<double> s = numbers(child, 3);
        frame = frame * Eigen::Scaling(s[0], s[1], s[2]);
      } else if (name == "instance_geometry") {
        add_geometry(target(child, "url", "geometry"), frame);
      } else if (name == "node") {
        add_node(child, frame, depth + 1);
      } else if (name == "instance_node") {
        if (++instanced_nodes_ > 10000)
          throw InputError(source_, child->GetLineNum(), "more than 10000 instanced nodes");
        add_node(target(child, "url", "node"), frame, depth + 1);
      }
    }
  }

  // The positions a primitive's VERTEX input names: <vertices> -> POSITION -> <source>.
  std::vector<Eigen::Vector3d> positions(const tinyxml2::XMLElement* vertices) const {
    for (const tinyxml2::XMLElement* input = vertices->FirstChildElement("input"); input;
         input = input->NextSiblingElement("input")) {
      const char* semantic = input->Attribute("semantic");
      if (!semantic || std::strcmp(semantic, "POSITION") != 0) continue;
      const tinyxml2::XMLElement* source = target(input, "source", "source");
      const tinyxml2::XMLElement* array = source->FirstChildElement("float_array");
      if (!array) throw InputError(source_, source->GetLineNum(), "<source> without <float_array>");
      const std::vector<double> values = numbers(array);
      int stride = 3;
      if (const tinyxml2::XMLElement* common = source->FirstChildElement("technique_common"))
        if (const tinyxml2::XMLElement* accessor = common->FirstChildElement("accessor"))
          stride = accessor->IntAttribute("stride", 3);
      if (stride < 3 || stride > 16)
        throw InputError(source_, source->GetLineNum(), "positions with a stride outside 3 to 16");
      std::vector<Eigen::Vector3d> points;
      for (std::size_t i = 0; i + 2 < values.size(); i += static_cast<std::size_t>(stride))
        points.emplace_back(values[i], values[i + 1], values[i + 2]);
      return points;
    }
    throw InputError(source_, vertices->GetLineNum(), "<vertices> without a POSITION input");
  }

  // A geometry's points and triangles in its own frame, read once however often it is
  // instantiated.
  struct ParsedGeometry {
    std::vector<Eigen::Vector3d> points;
    std::vector<std::uint32_t> triangles;  // indices into points
  };
  const ParsedGeometry& parsed(const tinyxml2::XMLElement* geometry) {
    if (const auto found = parsed_.find(geometry); found != parsed_.end()) return found->second;
    ParsedGeometry& result = parsed_[geometry];
    const tinyxml2::XMLElement* mesh = geometry->FirstChildElement("mesh");
    if (!mesh) return result;  // splines, convex meshes: not drawn
    for (const tinyxml2::XMLElement* primitive = mesh->FirstChildElement(); primitive;
         primitive = primitive->NextSiblingElement()) {
      const std::string kind = primitive->Name();
      if (kind != "triangles" && kind != "polylist" && kind != "polygons") continue;
      int stride = 0, vertex_offset = -1;
      std::vector<Eigen::Vector3d> points;
      for (const tinyxml2::XMLElement* input = primitive->FirstChildElement("input"); input;
           input = input->NextSiblingElement("input")) {
        const int offset = input->IntAttribute("offset", 0);
        if (offset < 0 || offset > 64)
          throw InputError(source_, input->GetLineNum(), "an input offset outside 0 to 64");
        stride = std::max(stride, offset + 1);
        const char* semantic = input->Attribute("semantic");
        if (semantic && std::strcmp(semantic, "VERTEX") == 0) {
          vertex_offset = offset;
          points = positions(target(input, "source", "vertices"));
        }
      }
      if (vertex_offset < 0)
        throw InputError(source_, primitive->GetLineNum(), "<" + kind + "> without a VERTEX input");
      std::vector<std::vector<long long>> polygons;  // vertex indices
      auto indices = [&](const tinyxml2::XMLElement* p) {
        std::vector<long long> all;
        const std::vector<double> values = numbers(p);
        for (std::size_t i = static_cast<std::size_t>(vertex_offset); i < values.size();
             i += static_cast<std::size_t>(stride)) {
          const double value = values[i];
          if (value != std::floor(value) || value < 0 ||
              value >= static_cast<double>(points.size()))
            throw InputError(source_, p->GetLineNum(),
                             "an index in <p> names no vertex (there are " +
                                 std::to_string(points.size()) + ")");
          all.push_back(static_cast<long long>(value));
        }
        return all;
      };
      if (kind == "triangles") {
        if (const tinyxml2::XMLElement* p = primitive->FirstChildElement("p")) {
          const std::vector<long long> all = indices(p);
          for (std::size_t i = 0; i + 2 < all.size(); i += 3)
            polygons.push_back({all[i], all[i + 1], all[i + 2]});
        }
      } else if (kind == "polylist") {
        const tinyxml2::XMLElement* p = primitive->FirstChildElement("p");
        const tinyxml2::XMLElement* vcount = primitive->FirstChildElement("vcount");
        if (p && vcount) {
          const std::vector<long long> all = indices(p);
          std::size_t at = 0;
          for (double count : numbers(vcount)) {
            if (count != std::floor(count) || count < 0 || at + count > all.size())
              throw InputError(source_, vcount->GetLineNum(),
                               "<vcount> does not match the indices of <p>");
            polygons.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                                  all.begin() + static_cast<std::ptrdiff_t>(at + count));
            at += static_cast<std::size_t>(count);
          }
        }
      } else {
        for (const tinyxml2::XMLElement* p = primitive->FirstChildElement("p"); p;
             p = p->NextSiblingElement("p"))
          polygons.push_back(indices(p));
      }
      // Each primitive's points once.
      std::size_t triangles = 0;
      for (const auto& polygon : polygons)
        triangles += polygon.size() >= 3 ? polygon.size() - 2 : 0;
      if (result.triangles.size() / 3 + triangles > kMaxMeshTriangles ||
          result.points.size() + points.size() > kMaxVertices)
        throw InputError(source_, primitive->GetLineNum(), too_many());
      const auto first = static_cast<std::uint32_t>(result.points.size());
      result.points.insert(result.points.end(), points.begin(), points.end());
      for (const auto& polygon : polygons)
        for (std::size_t k = 1; k + 1 < polygon.size(); ++k)
          for (const long long index : {polygon[0], polygon[k], polygon[k + 1]})
            result.triangles.push_back(first + static_cast<std::uint32_t>(index));
    }
    return result;
  }

  // An instance of the geometry, moved into the file's frame, within the mesh's bounds.
  void add_geometry(const tinyxml2::XMLElement* geometry, const Eigen::Affine3d& frame) {
    const ParsedGeometry& geometry_data = parsed(geometry);
    const std::size_t first = mesh_.vertices.size() / 3;
    if (mesh_.triangles.size() / 3 + geometry_data.triangles.size() / 3 > kMaxMeshTriangles ||
        first + geometry_data.points.size() > kMaxVertices)
      throw InputError(source_, geometry->GetLineNum(), too_many());
    for (const Eigen::Vector3d& point : geometry_data.points) add_vertex(mesh_, frame * point);
    for (const std::uint32_t index : geometry_data.triangles)
      mesh_.triangles.push_back(static_cast<std::uint32_t>(first) + index);
  }

  static std::string too_many() {
    return "more than " + std::to_string(kMaxMeshTriangles) + " triangles or " +
           std::to_string(kMaxVertices) + " vertices in one mesh";
  }

  std::string source_;
  const tinyxml2::XMLElement* root_ = nullptr;
  std::map<std::string, const tinyxml2::XMLElement*> ids_;
  Eigen::Affine3d in_metres_;
  TriangleMesh mesh_;
  std::map<const tinyxml2::XMLElement*, ParsedGeometry> parsed_;
  int instanced_nodes_ = 0;
  long long visited_ = 0;  // node children walked, instances included
};

TriangleMesh collada(std::string_view text, const std::string& source) {
  io::check_xml_text(text, source);
  tinyxml2::XMLDocument document;
  if (document.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    throw InputError(source, document.ErrorLineNum(),
                     std::string("not XML: ") + document.ErrorName());
  return ColladaReader(document, source).read();
}

}  // namespace

TriangleMesh parse_mesh(std::string_view bytes, const std::string& source) {
  const std::string extension = lower_case(std::filesystem::path(source).extension().string());
  TriangleMesh mesh;
  if (extension == ".stl")
    mesh = stl(bytes, source);
  else if (extension == ".obj")
    mesh = obj(bytes, source);
  else if (extension == ".dae")
    mesh = collada(bytes, source);
  else
    throw InputError(source, 0,
                     "a mesh format skograph does not read (STL, OBJ and COLLADA .dae it does)");
  for (float value : mesh.vertices)
    if (!std::isfinite(value))
      throw InputError(source, 0, "a vertex beyond single precision's range");
  return mesh;
}

TriangleMesh read_mesh_file(const std::string& path) {
  return parse_mesh(read_file_bytes(path), path);
}

std::string locate_mesh_file(const std::string& name, const std::string& model_file,
                             const std::vector<std::string>& package_paths) {
  namespace fs = std::filesystem;
  std::error_code error;
  auto file_at = [&](const fs::path& path) {
    return fs::is_regular_file(path, error) ? path.lexically_normal().string() : std::string();
  };
  const fs::path model_folder = fs::path(model_file).parent_path();
  for (const char* scheme : {"package://", "model://"}) {
    if (name.rfind(scheme, 0) != 0) continue;
    const std::string rest = name.substr(std::strlen(scheme));
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) return "";
    const std::string package = rest.substr(0, slash), inside = rest.substr(slash + 1);
    std::vector<fs::path> folders;
    for (const std::string& folder : package_paths) {
      fs::path normal = fs::path(folder).lexically_normal();
      if (normal.filename().empty()) normal = normal.parent_path();  // "dir/"
      folders.push_back(normal);
    }
    fs::path above = fs::absolute(model_folder.empty() ? fs::path(".") : model_folder, error);
    for (int up = 0; up < 32 && !above.empty(); ++up) {
      folders.push_back(above);
      if (above == above.parent_path()) break;
      above = above.parent_path();
    }
    for (const fs::path& folder : folders) {
      if (std::string found = file_at(folder / package / inside); !found.empty()) return found;
      if (folder.filename() == package)
        if (std::string found = file_at(folder / inside); !found.empty()) return found;
    }
    return "";
  }
  if (name.rfind("file://", 0) == 0) return file_at(name.substr(7));
  const fs::path path(name);
  return file_at(path.is_absolute() ? path : model_folder / path);
}

}  // namespace skograph
