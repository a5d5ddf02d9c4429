#include "ppkit/fem/vtu_writer.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {

std::vector<double> element_von_mises(const HexMesh& mesh, const Material& material,
                                      const std::vector<double>& displacement) {
  require(std::int64_t(displacement.size()) == mesh.num_dofs(),
          "displacement size does not match the mesh");
  const auto D = constitutive_matrix(material);
  std::vector<double> out(mesh.num_elements());
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    ElementCoordinates x;
    ElementVector u;
    for (int a = 0; a < 8; ++a)
      for (int i = 0; i < 3; ++i) {
        const std::int64_t v = mesh.elements[8 * e + a];
        x[3 * a + i] = mesh.coordinates[3 * v + i];
        u[3 * a + i] = displacement[3 * v + i];
      }
    const auto strain = element_strain(x, u, {0, 0, 0});
    double s[6] = {};
    for (int p = 0; p < 6; ++p)
      for (int q = 0; q < 6; ++q) s[p] += D[p][q] * strain[q];
    out[e] = std::sqrt(0.5 * ((s[0] - s[1]) * (s[0] - s[1]) + (s[1] - s[2]) * (s[1] - s[2]) +
                              (s[2] - s[0]) * (s[2] - s[0])) +
                       3 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
  }
  return out;
}

void write_vtu(const std::string& path, const HexMesh& mesh,
               const std::vector<double>& displacement, const std::vector<double>& von_mises) {
  require(std::int64_t(displacement.size()) == mesh.num_dofs(),
          "displacement size does not match the mesh");
  require(std::int64_t(von_mises.size()) == mesh.num_elements(),
          "von Mises size does not match the mesh");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) throw Error("cannot write '" + path + "'", "a writable path");
  std::FILE* o = f.get();
  std::fprintf(o,
               "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" "
               "byte_order=\"LittleEndian\">\n");
  std::fprintf(o, "<UnstructuredGrid>\n<Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
               (long long)mesh.num_nodes(), (long long)mesh.num_elements());
  std::fprintf(
      o, "<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    std::fprintf(o, "%.10g %.10g %.10g\n", mesh.coordinates[3 * v], mesh.coordinates[3 * v + 1],
                 mesh.coordinates[3 * v + 2]);
  std::fprintf(o,
               "</DataArray>\n</Points>\n<Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" "
               "format=\"ascii\">\n");
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    for (int a = 0; a < 8; ++a) std::fprintf(o, "%d ", mesh.elements[8 * e + a]);
    std::fprintf(o, "\n");
  }
  std::fprintf(o, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    std::fprintf(o, "%lld\n", 8 * (long long)(e + 1));
  std::fprintf(o, "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) std::fprintf(o, "12\n");
  std::fprintf(o, "</DataArray>\n</Cells>\n<PointData Vectors=\"displacement\">\n");
  std::fprintf(o,
               "<DataArray type=\"Float64\" Name=\"displacement\" NumberOfComponents=\"3\" "
               "format=\"ascii\">\n");
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    std::fprintf(o, "%.10g %.10g %.10g\n", displacement[3 * v], displacement[3 * v + 1],
                 displacement[3 * v + 2]);
  std::fprintf(o, "</DataArray>\n</PointData>\n<CellData Scalars=\"von_mises\">\n");
  std::fprintf(o, "<DataArray type=\"Float64\" Name=\"von_mises\" format=\"ascii\">\n");
  for (double s : von_mises) std::fprintf(o, "%.10g\n", s);
  std::fprintf(o, "</DataArray>\n</CellData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
  if (std::ferror(o))
    throw Error("writing '" + path + "' failed", "a writable path with free space");
}

}  // namespace ppkit::fem
