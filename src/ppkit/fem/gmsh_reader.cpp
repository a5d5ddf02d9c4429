#include "ppkit/fem/gmsh_reader.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {
namespace {

// Nodes per element for the Gmsh element types we accept (lower-dimensional
// ones only feed node groups).
int nodes_of_type(int type) {
  switch (type) {
    case 1:
      return 2;  // 2-node line
    case 2:
      return 3;  // 3-node triangle
    case 3:
      return 4;  // 4-node quadrangle
    case 5:
      return 8;  // 8-node hexahedron
    case 8:
      return 3;  // 3-node line
    case 9:
      return 6;  // 6-node triangle
    case 10:
      return 9;  // 9-node quadrangle
    case 15:
      return 1;  // point
    case 16:
      return 8;  // 8-node quadrangle
    default:
      return -1;
  }
}
int dimension_of_type(int type) {
  switch (type) {
    case 15:
      return 0;
    case 1:
    case 8:
      return 1;
    case 2:
    case 3:
    case 9:
    case 10:
    case 16:
      return 2;
    default:
      return 3;
  }
}

// A token as it can be quoted in a message: bytes outside printable ASCII as
// \xNN (a binary file's NUL would end the message where it is printed), at
// most 40 characters.
std::string printable(const std::string& token) {
  std::string out;
  for (const unsigned char c : token) {
    if (out.size() >= 40) return out + "...";
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    }
  }
  return out;
}

// Whitespace-separated tokens with their line numbers.
class Tokens {
 public:
  Tokens(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  long line() const { return line_number_; }

  // The next token; throws naming `what` when the file ends.
  std::string next(const std::string& what) {
    while (position_ >= tokens_.size()) {
      if (!std::getline(in_, line_))
        fail("file ends while reading " + what + " (truncated file?)", "");
      ++line_number_;
      tokens_.clear();
      position_ = 0;
      std::istringstream s(line_);
      for (std::string t; s >> t;) tokens_.push_back(t);
    }
    return tokens_[position_++];
  }
  // The rest of the current line, raw (for quoted physical names).
  std::string rest_of_line() {
    std::string rest;
    for (; position_ < tokens_.size(); ++position_)
      rest += (rest.empty() ? "" : " ") + tokens_[position_];
    return rest;
  }
  long long integer(const std::string& what) {
    const std::string t = next(what);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || t.empty())
      fail("expected an integer (" + what + "), got '" + printable(t) + "'", "an integer");
    return v;
  }
  double real(const std::string& what) {
    const std::string t = next(what);
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || t.empty())
      fail("expected a number (" + what + "), got '" + printable(t) + "'", "a real number");
    return v;
  }
  long long count(const std::string& what) {
    const long long n = integer(what);
    if (n < 0) fail("negative " + what + " " + std::to_string(n), ">= 0");
    return n;
  }
  void expect(const std::string& keyword) {
    const std::string t = next(keyword);
    if (t != keyword) fail("expected '" + keyword + "', got '" + printable(t) + "'", keyword);
  }
  [[noreturn]] void fail(const std::string& what, const std::string& valid) const {
    throw Error(source_ + " line " + std::to_string(line_number_) + ": " + what, valid);
  }

 private:
  std::istream& in_;
  std::string source_, line_;
  std::vector<std::string> tokens_;
  std::size_t position_ = 0;
  long line_number_ = 0;
};

}  // namespace

HexMesh read_gmsh(std::istream& in, const std::string& source_name) {
  Tokens t(in, source_name);
  HexMesh mesh;
  mesh.source = source_name;
  std::map<int, std::string> physical_names;  // tag -> name
  std::map<std::pair<int, int>, std::vector<int>>
      entity_physicals;                                    // (dim, entity) -> physical tags
  std::unordered_map<long long, std::int32_t> node_index;  // Gmsh node tag -> 0-based
  std::map<int, std::set<std::int32_t>> physical_nodes;    // physical tag -> nodes
  bool have_format = false, have_nodes = false, have_elements = false;

  for (;;) {
    std::string section;
    try {
      section = t.next("a section");
    } catch (const Error&) {
      break;  // end of file between sections
    }
    if (section.empty() || section[0] != '$')
      t.fail("expected a section such as $Nodes, got '" + printable(section) + "'", "$Name");
    const std::string name = section.substr(1);
    if (name == "MeshFormat") {
      const std::string version = t.next("the format version");
      const long long file_type = t.integer("the file type");
      t.integer("the data size");
      if (version != "4.1")
        t.fail("unsupported Gmsh format version " + printable(version), "4.1 (Gmsh -format msh41)");
      if (file_type != 0) t.fail("binary .msh files are not supported", "ASCII (file type 0)");
      have_format = true;
    } else if (name == "PhysicalNames") {
      const long long n = t.count("the number of physical names");
      for (long long i = 0; i < n; ++i) {
        t.integer("a physical group dimension");
        const int tag = int(t.integer("a physical tag"));
        std::string quoted = t.next("a physical name");
        const std::string rest = t.rest_of_line();  // names may contain spaces
        if (!rest.empty()) quoted += " " + rest;
        if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"')
          t.fail("physical name " + printable(quoted) + " is not in double quotes", "\"name\"");
        physical_names[tag] = quoted.substr(1, quoted.size() - 2);
      }
    } else if (name == "Entities") {
      const long long counts[4] = {t.count("the number of points"), t.count("the number of curves"),
                                   t.count("the number of surfaces"),
                                   t.count("the number of volumes")};
      for (int dim = 0; dim < 4; ++dim)
        for (long long i = 0; i < counts[dim]; ++i) {
          const int tag = int(t.integer("an entity tag"));
          for (int c = 0; c < (dim == 0 ? 3 : 6); ++c) t.real("an entity bounding box");
          const long long n_physical = t.count("the number of physical tags");
          auto& physicals = entity_physicals[{dim, tag}];
          for (long long k = 0; k < n_physical; ++k)
            physicals.push_back(int(t.integer("a physical tag")));
          if (dim > 0) {
            const long long n_bounding = t.count("the number of bounding entities");
            for (long long k = 0; k < n_bounding; ++k) t.integer("a bounding entity tag");
          }
        }
    } else if (name == "Nodes") {
      const long long blocks = t.count("the number of node blocks");
      const long long total = t.count("the number of nodes");
      t.integer("the minimum node tag");
      t.integer("the maximum node tag");
      if (total >= (1LL << 31) / 3)
        t.fail(std::to_string(total) + " nodes are too many", "fewer than 715 million");
      // The header's count is not trusted with memory: a 100-byte file may announce
      // 700 million nodes. Reserve at most a million; the arrays grow as nodes are read.
      mesh.coordinates.reserve(3 * std::size_t(std::min(total, 1LL << 20)));
      for (long long b = 0; b < blocks; ++b) {
        t.integer("a node block's entity dimension");
        t.integer("a node block's entity tag");
        const long long parametric = t.integer("the parametric flag");
        const long long n = t.count("the number of nodes in a block");
        if (parametric != 0) t.fail("parametric node coordinates are not supported", "0");
        for (long long k = 0; k < n; ++k) {
          const long long tag = t.integer("a node tag");
          if (tag < 1)  // Gmsh 4.1: node tags are strictly positive
            t.fail("node tag " + std::to_string(tag) + " is not positive", "node tags >= 1");
          if (!node_index.emplace(tag, std::int32_t(node_index.size())).second)
            t.fail("node tag " + std::to_string(tag) + " appears twice", "unique node tags");
        }
        for (long long k = 0; k < 3 * n; ++k)
          mesh.coordinates.push_back(t.real("a node coordinate"));
      }
      if (std::int64_t(node_index.size()) != total)
        t.fail("$Nodes announced " + std::to_string(total) + " nodes but holds " +
                   std::to_string(node_index.size()),
               "a consistent node count");
      have_nodes = true;
    } else if (name == "Elements") {
      if (!have_nodes) t.fail("$Elements comes before $Nodes", "$Nodes first");
      const long long blocks = t.count("the number of element blocks");
      t.count("the number of elements");
      t.integer("the minimum element tag");
      t.integer("the maximum element tag");
      for (long long b = 0; b < blocks; ++b) {
        const int dim = int(t.integer("an element block's entity dimension"));
        const int entity = int(t.integer("an element block's entity tag"));
        const int type = int(t.integer("an element type"));
        const long long n = t.count("the number of elements in a block");
        const int per_element = nodes_of_type(type);
        if (per_element < 0 || (dimension_of_type(type) == 3 && type != 5))
          t.fail("unsupported element type " + std::to_string(type),
                 "5 (8-node hexahedron) for volumes; 1, 2, 3, 8, 9, 10, 15, 16 on boundaries");
        const auto found = entity_physicals.find({dim, entity});
        const std::vector<int> no_groups;
        const auto& physicals = found == entity_physicals.end() ? no_groups : found->second;
        for (long long k = 0; k < n; ++k) {
          const long long tag = t.integer("an element tag");
          const long line = t.line();
          for (int a = 0; a < per_element; ++a) {
            const long long node_tag = t.integer("a node tag of element " + std::to_string(tag));
            const auto it = node_index.find(node_tag);
            if (it == node_index.end())
              t.fail("element " + std::to_string(tag) + " refers to unknown node " +
                         std::to_string(node_tag),
                     "node tags listed in $Nodes");
            if (type == 5) mesh.elements.push_back(it->second);
            for (int p : physicals) physical_nodes[p].insert(it->second);
          }
          if (type == 5) {
            mesh.element_tags.push_back(tag);
            mesh.element_lines.push_back(line);
          }
        }
      }
      have_elements = true;
    } else {
      // Sections we do not use ($Periodic, $NodeData, ...): skip to their end.
      for (std::string s; (s = t.next("$End" + name)) != "$End" + name;) {
      }
      continue;
    }
    t.expect("$End" + name);
  }
  if (!have_format) t.fail("no $MeshFormat section", "a Gmsh .msh 4.1 ASCII file");
  if (!have_nodes || !have_elements)
    t.fail("no $Nodes or $Elements section", "a Gmsh .msh 4.1 ASCII file");
  if (mesh.elements.empty())
    t.fail("no 8-node hexahedra (type 5) in the file", "a hexahedral mesh");
  for (const auto& [tag, nodes] : physical_nodes) {
    const auto n = physical_names.find(tag);
    const std::string group =
        n == physical_names.end() ? "physical " + std::to_string(tag) : n->second;
    auto& out = mesh.node_groups[group];
    out.insert(out.end(), nodes.begin(), nodes.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return mesh;
}

HexMesh read_gmsh_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open mesh file '" + path + "'", "a readable Gmsh .msh 4.1 ASCII file");
  return read_gmsh(in, path);
}

}  // namespace ppkit::fem
