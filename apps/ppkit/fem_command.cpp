// `ppkit fem assemble ...`, `ppkit fem tiles ...` and `ppkit fem cantilever ...`
// (docs/fem.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/timing.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/cantilever.hpp"
#include "ppkit/fem/gmsh_reader.hpp"
#include "ppkit/fem/matrix_market.hpp"
#include "ppkit/fem/tiled_layout.hpp"
#include "ppkit/fem/vtu_writer.hpp"

namespace {
using namespace ppkit::fem;

// "a,b,c" -> 3 values; throws ppkit::Error naming the option.
template <class T>
std::array<T, 3> parse_triple(const std::string& text, const std::string& option,
                              const std::string& valid) {
  std::array<T, 3> out{};
  std::istringstream in(text);
  char comma = 0;
  if (!(in >> out[0] >> comma >> out[1]) || comma != ',' || !(in >> comma >> out[2]) ||
      comma != ',' || !(in >> std::ws).eof())
    throw ppkit::Error(option + " '" + text + "' is not three comma-separated numbers", valid);
  return out;
}

// The mesh options shared by `assemble` and `tiles`.
struct MeshArgs {
  std::string mesh, box, size = "1,1,1";
  double perturb = 0;
  unsigned seed = 1;
  bool scramble = false;

  void add_to(CLI::App* command) {
    command->add_option("--mesh", mesh, "Gmsh .msh 4.1 ASCII file with hexahedra (type 5)");
    command->add_option("--box", box, "Structured box NX,NY,NZ elements");
    command->add_option("--size", size, "Box size LX,LY,LZ")->capture_default_str();
    command
        ->add_option("--perturb", perturb,
                     "Random node perturbation, fraction of the element edge (0..0.15)")
        ->capture_default_str();
    command->add_option("--seed", seed, "Seed of the perturbation")->capture_default_str();
    command->add_flag("--scramble", scramble,
                      "Grade, twist and renumber the box at random (a general mesh: "
                      "make_scrambled_box_mesh)");
  }
  // Host bytes of a box's assembly, checked before it is built: per node 3
  // DOF rows of 81 nonzeros (27 neighbour nodes x 3 components; values and
  // column indices) and the coordinates; per element the 24 x 24 element
  // matrix and the scatter map. A lower bound (colouring and the variants'
  // layouts come on top).
  void require_box_fits() const {
    if (box.empty()) return;
    const auto n = parse_triple<int>(box, "--box", "NX,NY,NZ, e.g. 32,32,32");
    for (int e : n)
      ppkit::require(e >= 1, "--box '" + box + "' has an axis without elements", ">= 1 per axis");
    const double nodes = double(n[0] + 1) * double(n[1] + 1) * double(n[2] + 1);
    const double elements = double(n[0]) * double(n[1]) * double(n[2]);
    const double bytes = nodes * (3 * 81 * (8 + 4) + 3 * 8) + elements * (576 * 8 + 576 * 4);
    ppkit::memory::require_fits(
        fmt::format("fem assembly of the {} box ({:.3g} elements)", box, elements), bytes, "host");
  }
  // The mesh and a one-line description of it.
  HexMesh build(std::string& description) const {
    if (mesh.empty() == box.empty())
      throw ppkit::Error("give exactly one of --mesh and --box",
                         "--mesh FILE.msh or --box NX,NY,NZ");
    if (!mesh.empty() && (perturb != 0 || scramble))
      throw ppkit::Error("--perturb and --scramble apply to --box meshes only");
    if (!mesh.empty()) {
      description = mesh;
      return read_gmsh_file(mesh);
    }
    BoxMeshSpec spec;
    spec.elements = parse_triple<int>(box, "--box", "NX,NY,NZ, e.g. 32,32,32");
    spec.size = parse_triple<double>(size, "--size", "LX,LY,LZ, e.g. 1,1,1");
    spec.perturbation = perturb;
    spec.seed = seed;
    description = std::string(scramble ? "scrambled " : "") + "box " + box +
                  (perturb > 0 ? fmt::format(" perturbed {}", perturb) : "") +
                  (perturb > 0 || scramble ? fmt::format(" (seed {})", seed) : "");
    return scramble ? make_scrambled_box_mesh(spec) : make_box_mesh(spec);
  }
};

// Physical inputs checked before the mesh is built: a non-finite or
// out-of-range modulus would assemble NaN everywhere, a tolerance outside (0, 1)
// would run CG to its iteration limit.
void check_material(double E, double nu) {
  ppkit::require(std::isfinite(E) && E > 0, fmt::format("--E {:g} is not a positive modulus", E),
                 "a finite Young's modulus > 0 Pa");
  ppkit::require(std::isfinite(nu) && nu > -1 && nu < 0.5,
                 fmt::format("--nu {:g} is not a Poisson ratio", nu), "-1 < nu < 0.5");
}

struct AssembleArgs {
  MeshArgs mesh;
  std::string variant = "all", export_mtx, export_rhs, body_force = "0,0,-9.81";
  double E = 2e11, nu = 0.3;  // steel, as fem cantilever
  int repeats = 3;
};

int run_assemble(const AssembleArgs& a) {
  check_material(a.E, a.nu);
  Material material;
  material.youngs_modulus = a.E;
  material.poisson_ratio = a.nu;
  material.body_force = parse_triple<double>(a.body_force, "--body-force", "BX,BY,BZ in N/m^3");
  for (double b : material.body_force)
    ppkit::require(std::isfinite(b), "--body-force '" + a.body_force + "' is not finite",
                   "finite BX,BY,BZ in N/m^3");
  ppkit::require(std::isfinite(a.mesh.perturb) && a.mesh.perturb >= 0 && a.mesh.perturb <= 0.15,
                 fmt::format("--perturb {:g} is out of range", a.mesh.perturb),
                 "0..0.15 of the element edge");
  if (!a.export_mtx.empty()) ppkit::require_writable_file(a.export_mtx, "--export-mtx");
  if (!a.export_rhs.empty()) ppkit::require_writable_file(a.export_rhs, "--export-rhs");
  a.mesh.require_box_fits();
  ppkit::Runtime runtime;
  const auto chosen = ppkit::cli::select_variants<FemAssemble>(a.variant);
  std::string description;
  HexMesh mesh = a.mesh.build(description);
  auto start = std::chrono::steady_clock::now();
  const auto problem = make_assembly_problem(std::move(mesh), material);
  const double setup_s = ppkit::seconds_since(start);
  fmt::print("{}: {} elements, {} nodes, {} DOF, {} nonzeros, {} colours (setup {:.3f} s)\n",
             description, problem.mesh.num_elements(), problem.mesh.num_nodes(),
             problem.mesh.num_dofs(), problem.pattern.num_nonzeros(),
             problem.coloured.num_colours(), setup_s);
  fmt::print(
      "plan: {} variant(s) x {} timed repeats of {} elements, verified against the host "
      "reference\n",
      chosen.size(), a.repeats, problem.mesh.num_elements());
  start = std::chrono::steady_clock::now();
  const auto reference = assemble_reference(problem);
  fmt::print("reference assembly (host, by colour): {:.3f} s\n", ppkit::seconds_since(start));
  const double elements = double(problem.mesh.num_elements());
  fmt::print("{:<36} {:>12} {:>12} {:>14} {:>12}  {}\n", "variant", "prepare [ms]", "time [ms]",
             "elements/s", "rel. error", "status");
  bool failed = false;
  const AssemblyResult* exported = &reference;
  AssemblyResult last;
  for (const auto* v : chosen) {
    const auto availability = v->availability();
    if (!availability.available) {
      fmt::print("{:<36} {:>12} {:>12} {:>14} {:>12}  {}\n", v->name, "-", "-", "-", "-",
                 ppkit::cli::status_text("SKIP", availability.reason));
      continue;
    }
    try {
      start = std::chrono::steady_clock::now();
      auto run = v->prepare(problem);
      const double prepare_s = ppkit::seconds_since(start);
      const auto timing = ppkit::time_repeats([&] { run->run(); }, a.repeats, 1);
      last = run->result();
      const double error = assembly_relative_error(last, reference);
      const bool ok = error <= 1e-12;
      failed |= !ok;
      fmt::print("{:<36} {:>12.3f} {:>12.3f} {:>14.4g} {:>12.2e}  {}\n", v->name, prepare_s * 1e3,
                 timing.median_s * 1e3, elements / timing.median_s, error,
                 ok ? "PASS" : "FAIL: differs from the reference (tolerance 1e-12)");
      if (chosen.size() == 1) exported = &last;
    } catch (const std::exception& e) {
      if (chosen.size() == 1) throw;  // one variant: its error is the command's
      failed = true;
      fmt::print("{:<36} {:>12} {:>12} {:>14} {:>12}  {}\n", v->name, "-", "-", "-", "-",
                 ppkit::cli::status_text("ERROR", e.what()));
    }
  }
  if (!a.export_mtx.empty()) {
    write_matrix_market(a.export_mtx, problem.pattern, exported->values);
    fmt::print("K written to {} (MatrixMarket, row/column = 3*node + component + 1)\n",
               a.export_mtx);
  }
  if (!a.export_rhs.empty()) {
    write_vector_market(a.export_rhs, exported->load);
    fmt::print("f written to {}\n", a.export_rhs);
  }
  return failed ? ppkit::cli::kVerificationFailed : ppkit::cli::kOk;
}

// Strategy (g)'s tile layout: per tile size and block capacity, its counts
// (tiled_layout_stats: blocks and colours per tile, per element).
struct TilesArgs {
  MeshArgs mesh;
  std::vector<std::string> tiles{"8,400", "16,640", "32,880", "32,1200", "64,2200"};
};

int run_tiles(const TilesArgs& a) {
  std::string description;
  const auto problem = make_assembly_problem(a.mesh.build(description), Material{});
  fmt::print("{}: {} elements, {} nonzeros ({:.1f} per element)\n", description,
             problem.mesh.num_elements(), problem.pattern.num_nonzeros(),
             double(problem.pattern.num_nonzeros()) / double(problem.mesh.num_elements()));
  fmt::print("{:<22} {:>8} {:>12} {:>22} {:>14} {:>14} {:>10}\n", "tile (elements, blocks)",
             "tiles", "values / el", "segments / el (values)", "chunks / el", "metadata B/el",
             "colours");
  for (const auto& tile : a.tiles) {
    std::istringstream in(tile);
    TiledLayoutOptions options;
    char comma = 0;
    if (!(in >> options.max_elements >> comma >> options.max_blocks) || comma != ',' ||
        !(in >> std::ws).eof())
      throw ppkit::Error("--tile '" + tile + "' is not two comma-separated integers",
                         "ELEMENTS,BLOCKS, e.g. 32,1200");
    const TiledLayout layout = make_tiled_layout(problem, options);
    const TiledLayoutStats s = tiled_layout_stats(layout);
    const double values = 9 * s.blocks_per_element;
    fmt::print("{:<22} {:>8} {:>12.0f} {:>15.1f} ({:>4.1f}) {:>14.1f} {:>14.0f} {:>10.1f}\n", tile,
               layout.num_tiles(), values, s.segments_per_element, values / s.segments_per_element,
               s.chunks_per_element, s.metadata_bytes_per_element, s.colours_per_tile);
  }
  return 0;
}

struct CantileverArgs {
  std::string elements = "40,4,4", size = "10,1,1", mesh, variant = "auto", vtu;
  double E = 2e11, nu = 0.3, load = 1e5, tolerance = 1e-10;
  int max_iterations = 50000;
  bool quiet = false, progress = false;
};

int run_cantilever(const CantileverArgs& a) {
  check_material(a.E, a.nu);
  ppkit::require(std::isfinite(a.load), fmt::format("--load {:g} is not finite", a.load),
                 "a finite end load in N");
  ppkit::require(std::isfinite(a.tolerance) && a.tolerance > 0 && a.tolerance < 1,
                 fmt::format("--tolerance {:g} is out of range", a.tolerance),
                 "a relative residual 0 < tol < 1, e.g. 1e-10");
  ppkit::require(a.max_iterations >= 1,
                 "--max-iterations " + std::to_string(a.max_iterations) + " is not positive",
                 ">= 1");
  if (!a.vtu.empty()) ppkit::require_writable_file(a.vtu, "--vtu");
  CantileverSpec spec;
  if (a.mesh.empty()) {
    spec.elements = parse_triple<int>(a.elements, "--elements", "NX,NY,NZ, e.g. 40,4,4");
    spec.size = parse_triple<double>(a.size, "--size", "L,B,H, e.g. 10,1,1");
    for (double l : spec.size)
      ppkit::require(std::isfinite(l) && l > 0, "--size '" + a.size + "' is not three lengths",
                     "L,B,H > 0 in m");
    MeshArgs box;
    box.box = a.elements;
    box.require_box_fits();
  }
  spec.mesh_file = a.mesh;
  spec.youngs_modulus = a.E;
  spec.poisson_ratio = a.nu;
  spec.load = a.load;
  spec.cg.relative_tolerance = a.tolerance;
  spec.cg.max_iterations = a.max_iterations;
  ppkit::Runtime runtime;
  const auto chosen = ppkit::cli::select_variants<FemAssemble>(a.variant);
  if (a.mesh.empty())
    fmt::print(
        "plan: {} x {} x {} elements ({} DOF), up to {} CG iterations to a relative "
        "residual of {:g}{}\n",
        spec.elements[0], spec.elements[1], spec.elements[2],
        3 * (spec.elements[0] + 1) * (spec.elements[1] + 1) * (spec.elements[2] + 1),
        a.max_iterations, a.tolerance,
        chosen.size() > 1 ? fmt::format(", once per each of {} variants", chosen.size())
                          : std::string());
  else
    fmt::print("plan: mesh {}, up to {} CG iterations to a relative residual of {:g}\n", a.mesh,
               a.max_iterations, a.tolerance);
  bool failed = false, wrote = false;
  double first_tip = std::nan("");
  for (const auto* v : chosen) {
    const auto availability = v->availability();
    if (!availability.available) {
      fmt::print("variant {}: {}\n", v->name, ppkit::cli::status_text("SKIP", availability.reason));
      continue;
    }
    spec.variant = v->name;
    // CG progress: the ETA from the residual's decrease so far (CG converges
    // about linearly in log ||r||, Saad 2003 section 6.11).
    ppkit::RunProgress progress(a.max_iterations, "iterations",
                                ppkit::progress_mode(a.quiet, a.progress));
    const auto start = std::chrono::steady_clock::now();
    spec.cg.on_iteration = [&](int it, double residual) {
      if (!progress.enabled()) return;
      const double fraction =
          residual > 0 ? std::clamp(std::log(residual) / std::log(a.tolerance), 0.0, 1.0) : 1.0;
      progress.show(fraction, fmt::format("CG iteration {}, relative residual {:.2e} (to {:.0e}), "
                                          "{:.0f} iterations/s",
                                          it, residual, a.tolerance,
                                          it / std::max(1e-9, ppkit::seconds_since(start))));
    };
    CantileverResult r;
    try {
      r = solve_cantilever(spec);
    } catch (const std::exception& e) {
      if (chosen.size() == 1) throw;  // one variant: its error is the command's
      progress.finish();
      failed = true;
      fmt::print("variant {}: {}\n", v->name, ppkit::cli::status_text("ERROR", e.what()));
      continue;
    }
    progress.finish();
    fmt::print(
        "cantilever {} x {} x {} m{}, {} elements ({}), {} DOF, E = {:g} Pa, nu = {:g}, P = {:g} "
        "N\n",
        r.beam[0], r.beam[1], r.beam[2], a.mesh.empty() ? "" : " (bounding box)",
        r.problem.mesh.num_elements(), a.mesh.empty() ? a.elements : a.mesh,
        r.problem.mesh.num_dofs(), spec.youngs_modulus, spec.poisson_ratio, spec.load);
    fmt::print("assembly: {} in {:.3f} s\n", r.variant, r.assembly_seconds);
    fmt::print("CG (Jacobi, {}): {} iterations, relative residual {:.2e}, {:.3f} s\n", r.cg.kernels,
               r.cg.iterations, r.cg.relative_residual, r.solve_seconds);
    if (std::isnan(r.theory))
      fmt::print(
          "tip deflection {:.6e} m (mean -u_z of the \"loaded\" nodes); Timoshenko: not "
          "applicable (the mesh does not fill its bounding box, or is not held at its x-minimum "
          "face and loaded at its x-maximum face)\n",
          r.tip_deflection);
    else
      fmt::print("tip deflection {:.6e} m, Timoshenko {:.6e} m, error {:.2f} %\n", r.tip_deflection,
                 r.theory, 100 * r.relative_error);
    // PASS: CG reached the tolerance (the discretisation error against
    // Timoshenko depends on the mesh and is shown above, not judged).
    failed |= !r.cg.converged;
    std::string detail = r.cg.converged
                             ? "CG converged"
                             : fmt::format(
                                   "CG stopped at --max-iterations {} with "
                                   "relative residual {:.2e} > {:g}",
                                   a.max_iterations, r.cg.relative_residual, a.tolerance);
    if (std::isnan(first_tip))
      first_tip = r.tip_deflection;
    else
      detail += fmt::format("; tip deflection differs from the first variant's by {:.2e}",
                            std::abs(r.tip_deflection - first_tip) / std::abs(first_tip));
    fmt::print("variant {}: {}\n", r.variant,
               ppkit::cli::status_text(r.cg.converged ? "PASS" : "FAIL", detail));
    if (!a.vtu.empty() && !wrote) {
      Material m;
      m.youngs_modulus = spec.youngs_modulus;
      m.poisson_ratio = spec.poisson_ratio;
      write_vtu(a.vtu, r.problem.mesh, r.displacement,
                element_von_mises(r.problem.mesh, m, r.displacement));
      fmt::print("VTU written to {} (displacement, von_mises)\n", a.vtu);
      wrote = true;
    }
  }
  return failed ? ppkit::cli::kVerificationFailed : ppkit::cli::kOk;
}

void add_fem_command(CLI::App& app) {
  auto* fem = app.add_subcommand(
      "fem", "Hex8 elasticity: element matrices + CSR assembly with colouring (Kiran et al. 2019)");
  fem->require_subcommand(1);

  auto aa = std::make_shared<AssembleArgs>();
  auto* as = fem->add_subcommand(
      "assemble",
      "Assemble K and f with each variant; time and verify against the serial reference");
  aa->mesh.add_to(as);
  as->add_option("--E", aa->E, "Young's modulus in Pa")->capture_default_str();
  as->add_option("--nu", aa->nu, "Poisson ratio")->capture_default_str();
  as->add_option("--body-force", aa->body_force, "Body force BX,BY,BZ in N/m^3")
      ->capture_default_str();
  as->add_option("--variant", aa->variant, ppkit::cli::variant_help("fem.assemble"))
      ->capture_default_str();
  as->add_option("--repeats", aa->repeats, "Timed repeats (median shown)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  as->add_option("--export-mtx", aa->export_mtx,
                 "Write K as MatrixMarket (with several variants: the reference)");
  as->add_option("--export-rhs", aa->export_rhs, "Write f as MatrixMarket");
  as->callback([aa] {
    if (const int status = run_assemble(*aa)) std::exit(status);
  });

  auto ta = std::make_shared<TilesArgs>();
  auto* ts = fem->add_subcommand(
      "tiles", "Strategy (g)'s tile layout: tiles, flushed values and row segments per element");
  ta->mesh.add_to(ts);
  ts->add_option("--tile", ta->tiles, "Tile ELEMENTS,BLOCKS (repeatable)")->capture_default_str();
  ts->callback([ta] { run_tiles(*ta); });

  auto ca = std::make_shared<CantileverArgs>();
  auto* cs = fem->add_subcommand(
      "cantilever",
      "Cantilever (a box fixed at x=0, or a Gmsh beam's \"fixed\" group) with an end load: CG "
      "solve vs Timoshenko beam theory");
  auto* elements =
      cs->add_option("--elements", ca->elements, "Elements NX,NY,NZ along length, width, height")
          ->capture_default_str();
  auto* size = cs->add_option("--size", ca->size, "Beam L,B,H in m")->capture_default_str();
  cs->add_option("--mesh", ca->mesh,
                 "Gmsh .msh 4.1 beam instead of the box: physical groups \"fixed\" (held nodes) "
                 "and \"loaded\" (end surface, load in -z)")
      ->excludes(elements)
      ->excludes(size);
  cs->add_option("--E", ca->E, "Young's modulus in Pa")->capture_default_str();
  cs->add_option("--nu", ca->nu, "Poisson ratio")->capture_default_str();
  cs->add_option("--load", ca->load, "Total end load in N, -z")->capture_default_str();
  cs->add_option("--variant", ca->variant, ppkit::cli::variant_help("fem.assemble"))
      ->capture_default_str();
  cs->add_option("--tolerance", ca->tolerance, "CG relative residual tolerance")
      ->capture_default_str();
  cs->add_option("--max-iterations", ca->max_iterations, "CG iteration limit")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cs->add_option("--vtu", ca->vtu, "Write displacement and von Mises stress to a .vtu file");
  cs->add_flag("--quiet", ca->quiet, "No progress line");
  cs->add_flag("--progress", ca->progress,
               "Progress line also when stderr is not a terminal (a line every 10 s)");
  cs->callback([ca] {
    if (const int status = run_cantilever(*ca)) std::exit(status);
  });
}

ppkit::cli::CommandRegistrar registrar{"fem", add_fem_command};
}  // namespace
