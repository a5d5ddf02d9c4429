/* ppkit SPH C API: the SPHERIC test 2 dam break (weakly compressible SPH,
 * docs/sph.md) driven step by step from C, Fortran (ISO_C_BINDING) or C++.
 *
 * Call ppkit_init() first. A simulation owns its particles on the device of
 * its sph.step variant; state and probes are copied to caller arrays. Every
 * function returns 0 on success and non-zero on failure; ppkit_sph_last_error()
 * then says why (a blow-up names the step and particle). */
#ifndef PPKIT_SPH_H
#define PPKIT_SPH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ppkit_sph_simulation ppkit_sph_simulation;

typedef struct ppkit_sph_dambreak_options {
  double dp;             /* initial particle spacing [m], > 0 (0.02-0.04 on a CPU) */
  double tank_height;    /* tank wall height [m], > 0.6 (1.0 in the experiment) */
  double h_over_dp;      /* smoothing length h / dp */
  double c0_coefficient; /* c0 = coefficient sqrt(g H), H = 0.55 m */
  double alpha;          /* Monaghan artificial viscosity */
  double delta;          /* delta-SPH density diffusion, 0 = off */
  double cfl;            /* Courant number of the variable time step */
  int reorder_every;     /* renumber particles by cell every K steps; 0 = never */
  const char* variant;   /* sph.step variant, NULL or "auto" = preferred available */
} ppkit_sph_dambreak_options;

/* Fills *options with the defaults (those of `ppkit sph dambreak`): dp 0.02,
 * tank 1.0 m, h = 1.5 dp, c0 = 10 sqrt(gH), alpha 0.05, delta 0.1, CFL 0.2,
 * renumbering every step, variant "auto". */
int ppkit_sph_dambreak_defaults(ppkit_sph_dambreak_options* options);

/* Builds the case (tank, water column, box obstacle) and its solver. */
int ppkit_sph_dambreak_create(const ppkit_sph_dambreak_options* options,
                              ppkit_sph_simulation** simulation);
/* Frees a simulation (NULL is accepted). */
void ppkit_sph_destroy(ppkit_sph_simulation* simulation);

/* Particle counts of the case: all (fluid + boundary) and fluid. */
int ppkit_sph_particle_count(const ppkit_sph_simulation* simulation, int64_t* total,
                             int64_t* fluid);

/* Steps until the simulated time reaches t_end [s] or max_steps steps were
 * done in this call (max_steps < 0: no limit); *steps_done (may be NULL)
 * receives the steps of this call. */
int ppkit_sph_advance(ppkit_sph_simulation* simulation, double t_end, int64_t max_steps,
                      int64_t* steps_done);

/* Simulated time [s], steps since the start and fluid particles that escaped
 * the domain; any pointer may be NULL. */
int ppkit_sph_status(const ppkit_sph_simulation* simulation, double* time, int64_t* steps,
                     int64_t* escaped);

/* SPHERIC test 2 probes of the current state: water heights H1..H4 [m] and
 * pressures P1..P8 [Pa] (positions in docs/sph.md); either may be NULL. */
int ppkit_sph_probes(ppkit_sph_simulation* simulation, double heights[4], double pressures[8]);

/* The state in the case's particle order (particle k is the k-th particle the
 * case generated), arrays of ppkit_sph_particle_count's total; any may be
 * NULL. kind: 0 fluid, 1 boundary, 2 escaped. */
int ppkit_sph_state(ppkit_sph_simulation* simulation, float* x, float* y, float* z, float* vx,
                    float* vy, float* vz, float* density, uint8_t* kind);

/* Why the last ppkit_sph_* call on this thread failed ("" if it did not). */
const char* ppkit_sph_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* PPKIT_SPH_H */
