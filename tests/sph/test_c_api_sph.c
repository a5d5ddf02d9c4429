/* The SPH C API used from C (include/ppkit_sph.h): a coarse dam break stepped
 * from a C host code. Checks: invalid options are rejected with a message;
 * particle counts and kinds are conserved over the steps; the water column
 * starts at rest at its depth (H4 = 0.55 m within 2 dp, H1 dry) and starts to
 * collapse toward the dry end (total x momentum negative); time advances; the state stays finite.
 * Exits 0 when every check holds, 1 with the failed check on stderr otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppkit.h"
#include "ppkit_sph.h"

static int failures = 0;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

int main(void) {
  if (ppkit_init() != 0) {
    fprintf(stderr, "ppkit_init failed: %s\n", ppkit_last_error());
    return 1;
  }
  ppkit_sph_dambreak_options o;
  CHECK(ppkit_sph_dambreak_defaults(&o) == 0, "%s", ppkit_sph_last_error());
  CHECK(o.dp == 0.02 && o.reorder_every == 1 && o.variant == NULL, "defaults dp %g", o.dp);

  /* Invalid options: a non-zero status, no simulation and a message naming the field. */
  ppkit_sph_simulation* bad = (ppkit_sph_simulation*)&o; /* must be reset to NULL */
  o.dp = -0.1;
  CHECK(ppkit_sph_dambreak_create(&o, &bad) != 0, "negative dp accepted");
  CHECK(bad == NULL, "simulation not reset on failure");
  CHECK(strstr(ppkit_sph_last_error(), "dp") != NULL, "message '%s'", ppkit_sph_last_error());
  CHECK(ppkit_sph_advance(NULL, 1.0, 1, NULL) != 0, "NULL simulation accepted");

  /* A coarse case: dp 0.1 m, low walls, renumbering every 2 steps. */
  o.dp = 0.1;
  o.tank_height = 0.7;
  o.reorder_every = 2;
  ppkit_sph_simulation* sim = NULL;
  if (ppkit_sph_dambreak_create(&o, &sim) != 0) {
    fprintf(stderr, "create failed: %s\n", ppkit_sph_last_error());
    return 1;
  }
  int64_t total = 0, fluid = 0;
  CHECK(ppkit_sph_particle_count(sim, &total, &fluid) == 0, "%s", ppkit_sph_last_error());
  CHECK(total > fluid && fluid > 0, "total %lld fluid %lld", (long long)total, (long long)fluid);

  double heights[4], pressures[8];
  CHECK(ppkit_sph_probes(sim, heights, pressures) == 0, "%s", ppkit_sph_last_error());
  CHECK(fabs(heights[3] - 0.55) <= 2 * o.dp, "H4 at rest %g m", heights[3]);
  CHECK(heights[0] == 0.0, "H1 at rest %g m (dry)", heights[0]);

  int64_t done = 0;
  CHECK(ppkit_sph_advance(sim, 10.0, 20, &done) == 0, "%s", ppkit_sph_last_error());
  CHECK(done == 20, "steps done %lld", (long long)done);
  double time = 0;
  int64_t steps = 0, escaped = -1;
  CHECK(ppkit_sph_status(sim, &time, &steps, &escaped) == 0, "%s", ppkit_sph_last_error());
  CHECK(time > 0 && steps == 20 && escaped == 0, "time %g steps %lld escaped %lld", time,
        (long long)steps, (long long)escaped);

  float* x = malloc(sizeof(float) * (size_t)total);
  float* z = malloc(sizeof(float) * (size_t)total);
  float* vx = malloc(sizeof(float) * (size_t)total);
  float* rho = malloc(sizeof(float) * (size_t)total);
  uint8_t* kind = malloc((size_t)total);
  CHECK(ppkit_sph_state(sim, x, NULL, z, vx, NULL, NULL, rho, kind) == 0, "%s",
        ppkit_sph_last_error());
  int64_t fluid_after = 0, finite = 1;
  double momentum_x = 0;
  for (int64_t i = 0; i < total; ++i) {
    if (kind[i] == 0) {
      ++fluid_after;
      momentum_x += vx[i];
    }
    if (!isfinite(x[i]) || !isfinite(z[i]) || !isfinite(vx[i]) || !isfinite(rho[i])) finite = 0;
  }
  CHECK(fluid_after == fluid, "fluid %lld after, %lld before", (long long)fluid_after,
        (long long)fluid);
  CHECK(momentum_x < 0, "sum of fluid u_x %g m/s (the column must move toward x = 0)", momentum_x);
  CHECK(finite, "state not finite");

  /* Advancing to a time already reached does nothing. */
  CHECK(ppkit_sph_advance(sim, time, -1, &done) == 0 && done == 0, "done %lld", (long long)done);

  free(x);
  free(z);
  free(vx);
  free(rho);
  free(kind);
  ppkit_sph_destroy(sim);
  ppkit_finalize();
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("SPH C API: all checks passed (%lld particles, t = %g s)\n", (long long)total, time);
  return failures ? 1 : 0;
}
