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
  put_particles(out, c.particles);
  checkpoint::write(path, out);
}

Checkpoint read_checkpoint(const std::string& path) {
  const checkpoint::Content in = checkpoint::read(path, "sph");
  Checkpoint c;
  c.time = in.get_double("time");
  c.step = in.get_integer("step");
  c.dp = in.get_double("dp");
  c.h = in.get_double("h");
  c.particles = get_particles(in, path);
  return c;
}

void put_particles(checkpoint::Content& out, const Particles& s) {
  out.put("x", s.x);
  out.put("y", s.y);
  out.put("z", s.z);
  out.put("vx", s.vx);
  out.put("vy", s.vy);
  out.put("vz", s.vz);
  out.put("rho", s.rho);
  out.put("kind", s.kind);
  out.put("id", s.id);
}

Particles get_particles(const checkpoint::Content& in, const std::string& path) {
  Particles s;
  s.x = in.get<Real>("x");
  s.y = in.get<Real>("y");
  s.z = in.get<Real>("z");
  s.vx = in.get<Real>("vx");
  s.vy = in.get<Real>("vy");
  s.vz = in.get<Real>("vz");
  s.rho = in.get<Real>("rho");
  s.kind = in.get<std::uint8_t>("kind");
  s.id = in.get<std::int32_t>("id");
  for (std::size_t n : {s.y.size(), s.z.size(), s.vx.size(), s.vy.size(), s.vz.size(), s.rho.size(),
                        s.kind.size(), s.id.size()})
    require(n == s.x.size(), "checkpoint '" + path + "' has arrays of different lengths",
            "x, y, z, vx, vy, vz, rho, kind, id of one length");
  return s;
}

}  // namespace ppkit::sph
