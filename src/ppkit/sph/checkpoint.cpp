#include "ppkit/sph/checkpoint.hpp"

#include "ppkit/core/checkpoint.hpp"
#include "ppkit/core/error.hpp"

namespace ppkit::sph {

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  checkpoint::Content out("sph");
  out.put_scalar("time", c.time);
  out.put_scalar("step", c.step);
  out.put_scalar("dp", c.dp);
  out.put_scalar("h", c.h);
  const Particles& s = c.particles;
  out.put("x", s.x);
  out.put("y", s.y);
  out.put("z", s.z);
  out.put("vx", s.vx);
  out.put("vy", s.vy);
  out.put("vz", s.vz);
  out.put("rho", s.rho);
  out.put("kind", s.kind);
  out.put("id", s.id);
  checkpoint::write(path, out);
}

Checkpoint read_checkpoint(const std::string& path) {
  const checkpoint::Content in = checkpoint::read(path, "sph");
  Checkpoint c;
  c.time = in.get_double("time");
  c.step = in.get_integer("step");
  c.dp = in.get_double("dp");
  c.h = in.get_double("h");
  Particles& s = c.particles;
  s.x = in.get<Real>("x");
  s.y = in.get<Real>("y");
  s.z = in.get<Real>("z");
  s.vx = in.get<Real>("vx");
  s.vy = in.get<Real>("vy");
  s.vz = in.get<Real>("vz");
  s.rho = in.get<Real>("rho");
  s.kind = in.get<std::uint8_t>("kind");
  s.id = in.get<std::int32_t>("id");
  const std::size_t n = s.x.size();
  for (const auto* v : {&s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.rho})
    require(v->size() == n, "checkpoint '" + path + "' has arrays of different lengths",
            "x, y, z, vx, vy, vz, rho, kind, id of one length");
  require(s.kind.size() == n && s.id.size() == n,
          "checkpoint '" + path + "' has arrays of different lengths",
          "x, y, z, vx, vy, vz, rho, kind, id of one length");
  return c;
}

}  // namespace ppkit::sph
