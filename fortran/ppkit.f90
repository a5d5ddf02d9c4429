! ppkit for Fortran: `use ppkit`, an ISO_C_BINDING module over the C API
! (include/ppkit.h, ppkit_sem.h, ppkit_fem.h, ppkit_fdtd.h). Arrays are passed as type(c_ptr):
! c_loc(host_array) for host memory, or the device addresses ppkit_malloc
! (or the host code's own CUDA/HIP runtime) returns. Every function returns 0
! on success; ppkit_error() gives the reason of the last failure.
module ppkit
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: PPKIT_MEM_HOST = 0, PPKIT_MEM_DEVICE = 1

  ! ppkit_sem_axhelm_mesh of ppkit_sem.h (same layout, bind(C)).
  type, bind(C), public :: ppkit_sem_axhelm_mesh
    integer(c_int) :: order = 0
    integer(c_long_long) :: elements = 0
    integer(c_int) :: ncol = 1
    integer(c_int) :: helmholtz = 0
    type(c_ptr) :: vertices = c_null_ptr   ! real(c_double) [3, 8, E], host
    type(c_ptr) :: factors = c_null_ptr    ! real(c_double) [Np, 7, E], host, or null
    type(c_ptr) :: trilinear = c_null_ptr  ! integer(c_signed_char) [E], or null
    type(c_ptr) :: variant = c_null_ptr    ! NUL-terminated name, or null for "auto"
  end type

  ! ppkit_fem_mesh of ppkit_fem.h (same layout, bind(C)).
  type, bind(C), public :: ppkit_fem_mesh
    integer(c_int64_t) :: num_nodes = 0
    type(c_ptr) :: coordinates = c_null_ptr   ! real(c_double) [3, num_nodes], host
    integer(c_int64_t) :: num_elements = 0
    type(c_ptr) :: connectivity = c_null_ptr  ! integer(c_int32_t) [8, num_elements], 0-based
  end type

  public :: ppkit_fem_assembler_create, ppkit_fem_assembler_pattern
  public :: ppkit_fem_assembler_copy_pattern, ppkit_fem_assembler_assemble
  public :: ppkit_fem_assembler_update_coordinates, ppkit_fem_assembler_wait
  public :: ppkit_fem_assembler_destroy

  ! ppkit_fdtd.h: field components and the element type of field arrays.
  integer(c_int), parameter, public :: PPKIT_FDTD_EX = 0, PPKIT_FDTD_EY = 1, PPKIT_FDTD_EZ = 2, &
                                       PPKIT_FDTD_HX = 3, PPKIT_FDTD_HY = 4, PPKIT_FDTD_HZ = 5
  integer(c_int), parameter, public :: PPKIT_FDTD_FP32 = 0, PPKIT_FDTD_FP64 = 1

  ! ppkit_fdtd_solver_info_t of ppkit_fdtd.h (same layout, bind(C)).
  type, bind(C), public :: ppkit_fdtd_solver_info_t
    integer(c_long_long) :: cells(3) = 0
    integer(c_long_long) :: nodes = 0        ! values of each field array
    integer(c_long_long) :: pitch = 0        ! z pitch of the stored rows
    integer(c_long_long) :: steps_done = 0
    integer(c_long_long) :: steps_total = 0
    integer(c_long_long) :: probes = 0
    integer(c_int) :: precision = 0          ! PPKIT_FDTD_FP32 or PPKIT_FDTD_FP64
    integer(c_int) :: memory_kind = 0        ! 0 host, 1 CUDA, 2 HIP, 3 managed, -1 OpenCL
    integer(c_int) :: device = -1
    real(c_double) :: dt = 0
    real(c_double) :: cell(3) = 0
    character(kind=c_char) :: variant(64) = c_null_char
  end type

  public :: ppkit_init, ppkit_finalize, ppkit_error, ppkit_malloc, ppkit_free, ppkit_memcpy
  public :: ppkit_dot, ppkit_axpby, ppkit_sem_gll
  public :: ppkit_sem_axhelm_create, ppkit_sem_axhelm_apply, ppkit_sem_axhelm_wait
  public :: ppkit_sem_axhelm_size, ppkit_sem_axhelm_destroy
  public :: ppkit_sem_gather_scatter_create, ppkit_sem_dssum, ppkit_sem_gather_scatter_destroy
  public :: ppkit_fdtd_solver_create_from_json, ppkit_fdtd_solver_step, ppkit_fdtd_solver_restart
  public :: ppkit_fdtd_solver_wait, ppkit_fdtd_solver_field, ppkit_fdtd_solver_set_field
  public :: ppkit_fdtd_solver_get_field, ppkit_fdtd_solver_probe_values, ppkit_fdtd_solver_info
  public :: ppkit_fdtd_solver_destroy

  interface
    integer(c_int) function ppkit_init() bind(C, name="ppkit_init")
      import :: c_int
    end function
    integer(c_int) function ppkit_finalize() bind(C, name="ppkit_finalize")
      import :: c_int
    end function
    type(c_ptr) function c_last_error() bind(C, name="ppkit_last_error")
      import :: c_ptr
    end function
    integer(c_int) function ppkit_malloc(bytes, memory, pointer) bind(C, name="ppkit_malloc")
      import :: c_int, c_size_t, c_ptr
      integer(c_size_t), value :: bytes
      integer(c_int), value :: memory
      type(c_ptr), intent(out) :: pointer
    end function
    integer(c_int) function ppkit_free(pointer) bind(C, name="ppkit_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: pointer
    end function
    integer(c_int) function ppkit_memcpy(destination, destination_memory, source, &
                                         source_memory, bytes) bind(C, name="ppkit_memcpy")
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: destination, source
      integer(c_int), value :: destination_memory, source_memory
      integer(c_size_t), value :: bytes
    end function
    ! result = sum x y w (w = c_null_ptr: 1)
    integer(c_int) function ppkit_dot(n, x, y, w, result) bind(C, name="ppkit_dot")
      import :: c_int, c_size_t, c_ptr, c_double
      integer(c_size_t), value :: n
      type(c_ptr), value :: x, y, w
      real(c_double), intent(out) :: result
    end function
    integer(c_int) function ppkit_axpby(n, alpha, x, beta, y) bind(C, name="ppkit_axpby")
      import :: c_int, c_size_t, c_ptr, c_double
      integer(c_size_t), value :: n
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: x, y
    end function
    integer(c_int) function ppkit_sem_gll(order, nodes, weights, derivative) &
        bind(C, name="ppkit_sem_gll")
      import :: c_int, c_double
      integer(c_int), value :: order
      real(c_double), intent(out) :: nodes(*), weights(*), derivative(*)
    end function
    integer(c_int) function ppkit_sem_axhelm_create(mesh, handle) &
        bind(C, name="ppkit_sem_axhelm_create")
      import :: c_int, c_ptr, ppkit_sem_axhelm_mesh
      type(ppkit_sem_axhelm_mesh), intent(in) :: mesh
      type(c_ptr), intent(out) :: handle
    end function
    integer(c_int) function ppkit_sem_axhelm_apply(handle, x, y, memory, lambda0, lambda1, &
                                                   stream) bind(C, name="ppkit_sem_axhelm_apply")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: handle, x, y, stream
      integer(c_int), value :: memory
      real(c_double), value :: lambda0, lambda1
    end function
    integer(c_int) function ppkit_sem_axhelm_wait(handle, stream) &
        bind(C, name="ppkit_sem_axhelm_wait")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, stream
    end function
    integer(c_int) function c_axhelm_info(handle, size, memory_kind, device, variant, capacity) &
        bind(C, name="ppkit_sem_axhelm_info")
      import :: c_int, c_ptr, c_long_long, c_size_t
      type(c_ptr), value :: handle, variant
      integer(c_long_long), intent(out) :: size
      integer(c_int), intent(out) :: memory_kind, device
      integer(c_size_t), value :: capacity
    end function
    integer(c_int) function ppkit_sem_axhelm_destroy(handle) &
        bind(C, name="ppkit_sem_axhelm_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    integer(c_int) function ppkit_sem_gather_scatter_create(like, global_ids, global_count, &
                                                            handle) &
        bind(C, name="ppkit_sem_gather_scatter_create")
      import :: c_int, c_ptr, c_long_long
      type(c_ptr), value :: like
      integer(c_long_long), intent(in) :: global_ids(*)
      integer(c_long_long), value :: global_count
      type(c_ptr), intent(out) :: handle
    end function
    integer(c_int) function ppkit_sem_dssum(handle, u, stream) bind(C, name="ppkit_sem_dssum")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, u, stream
    end function
    integer(c_int) function ppkit_sem_gather_scatter_destroy(handle) &
        bind(C, name="ppkit_sem_gather_scatter_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    integer(c_int) function ppkit_fem_assembler_create(mesh, variant, handle) &
        bind(C, name="ppkit_fem_assembler_create")
      import :: c_int, c_ptr, ppkit_fem_mesh
      type(ppkit_fem_mesh), intent(in) :: mesh
      type(c_ptr), value :: variant  ! c_null_ptr or a NUL-terminated name
      type(c_ptr), intent(out) :: handle
    end function
    integer(c_int) function ppkit_fem_assembler_pattern(handle, num_rows, num_nonzeros, &
                                                        row_offsets, column_indices) &
        bind(C, name="ppkit_fem_assembler_pattern")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: handle
      integer(c_int64_t), intent(out) :: num_rows, num_nonzeros
      type(c_ptr), intent(out) :: row_offsets, column_indices  ! in the assembler's memory
    end function
    integer(c_int) function ppkit_fem_assembler_copy_pattern(handle, row_offsets, &
                                                             column_indices, memory) &
        bind(C, name="ppkit_fem_assembler_copy_pattern")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, row_offsets, column_indices
      integer(c_int), value :: memory
    end function
    integer(c_int) function ppkit_fem_assembler_assemble(handle, youngs_modulus, poisson_ratio, &
                                                         body_force, values, load, memory, &
                                                         stream) &
        bind(C, name="ppkit_fem_assembler_assemble")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: handle, values, load, stream
      real(c_double), value :: youngs_modulus, poisson_ratio
      real(c_double), intent(in) :: body_force(3)
      integer(c_int), value :: memory
    end function
    integer(c_int) function ppkit_fem_assembler_update_coordinates(handle, coordinates) &
        bind(C, name="ppkit_fem_assembler_update_coordinates")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(in) :: coordinates(*)
    end function
    integer(c_int) function ppkit_fem_assembler_wait(handle, stream) &
        bind(C, name="ppkit_fem_assembler_wait")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, stream
    end function
    integer(c_int) function ppkit_fem_assembler_destroy(handle) &
        bind(C, name="ppkit_fem_assembler_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    ! json: a NUL-terminated case (json // c_null_char); variant: c_null_ptr for "auto"
    ! or c_loc of a NUL-terminated name.
    integer(c_int) function ppkit_fdtd_solver_create_from_json(json, variant, handle) &
        bind(C, name="ppkit_fdtd_solver_create_from_json")
      import :: c_int, c_ptr, c_char
      character(kind=c_char), intent(in) :: json(*)
      type(c_ptr), value :: variant
      type(c_ptr), intent(out) :: handle
    end function
    integer(c_int) function ppkit_fdtd_solver_step(handle, steps, stream) &
        bind(C, name="ppkit_fdtd_solver_step")
      import :: c_int, c_ptr, c_long_long
      type(c_ptr), value :: handle, stream
      integer(c_long_long), value :: steps
    end function
    integer(c_int) function ppkit_fdtd_solver_restart(handle) &
        bind(C, name="ppkit_fdtd_solver_restart")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    integer(c_int) function ppkit_fdtd_solver_wait(handle, stream) &
        bind(C, name="ppkit_fdtd_solver_wait")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, stream
    end function
    ! The field's address in the solver's memory, the values it spans and its strides.
    integer(c_int) function ppkit_fdtd_solver_field(handle, component, data, size, stride) &
        bind(C, name="ppkit_fdtd_solver_field")
      import :: c_int, c_ptr, c_long_long
      type(c_ptr), value :: handle
      integer(c_int), value :: component
      type(c_ptr), intent(out) :: data
      integer(c_long_long), intent(out) :: size, stride(3)
    end function
    ! values: c_loc of a host array (PPKIT_MEM_HOST) or a device address
    ! (PPKIT_MEM_DEVICE) of count = nodes real(c_float) / real(c_double) values.
    integer(c_int) function ppkit_fdtd_solver_set_field(handle, component, values, count, &
                                                        precision, memory, stream) &
        bind(C, name="ppkit_fdtd_solver_set_field")
      import :: c_int, c_ptr, c_long_long
      type(c_ptr), value :: handle, values, stream
      integer(c_int), value :: component, precision, memory
      integer(c_long_long), value :: count
    end function
    integer(c_int) function ppkit_fdtd_solver_get_field(handle, component, values, count, &
                                                        precision, memory, stream) &
        bind(C, name="ppkit_fdtd_solver_get_field")
      import :: c_int, c_ptr, c_long_long
      type(c_ptr), value :: handle, values, stream
      integer(c_int), value :: component, precision, memory
      integer(c_long_long), value :: count
    end function
    ! values(p * steps_done + s + 1): probe p after step s (0-based p and s).
    integer(c_int) function ppkit_fdtd_solver_probe_values(handle, values, capacity, count) &
        bind(C, name="ppkit_fdtd_solver_probe_values")
      import :: c_int, c_ptr, c_long_long, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: values(*)
      integer(c_long_long), value :: capacity
      integer(c_long_long), intent(out) :: count
    end function
    integer(c_int) function ppkit_fdtd_solver_info(handle, info) &
        bind(C, name="ppkit_fdtd_solver_info")
      import :: c_int, c_ptr, ppkit_fdtd_solver_info_t
      type(c_ptr), value :: handle
      type(ppkit_fdtd_solver_info_t), intent(out) :: info
    end function
    integer(c_int) function ppkit_fdtd_solver_destroy(handle) &
        bind(C, name="ppkit_fdtd_solver_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! The message of the last failed ppkit call on this thread.
  function ppkit_error() result(message)
    character(len=:), allocatable :: message
    character(kind=c_char), pointer :: chars(:)
    type(c_ptr) :: p
    integer :: i, n
    p = c_last_error()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: message)
    do i = 1, n
      message(i:i) = chars(i)
    end do
  end function

  ! Values of x and y of an axhelm operator, and where they live
  ! (memory_kind 0 host, 1 CUDA, 2 HIP).
  integer(c_int) function ppkit_sem_axhelm_size(handle, size, memory_kind) result(status)
    type(c_ptr), value :: handle
    integer(c_long_long), intent(out) :: size
    integer(c_int), intent(out) :: memory_kind
    integer(c_int) :: device
    status = c_axhelm_info(handle, size, memory_kind, device, c_null_ptr, 0_c_size_t)
  end function

end module ppkit
