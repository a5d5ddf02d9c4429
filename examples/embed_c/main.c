/* C host code calling ppkit through include/ppkit.h. */
#include <stdio.h>
#include <stdlib.h>

#include "ppkit.h"

int main(void) {
  if (ppkit_init() != 0) {
    fprintf(stderr, "ppkit_init failed: %s\n", ppkit_last_error());
    return 1;
  }
  size_t required = 0;
  ppkit_info_json(NULL, 0, &required);
  char* info = malloc(required);
  if (!info || ppkit_info_json(info, required, &required) != 0) {
    fprintf(stderr, "ppkit_info_json failed: %s\n", ppkit_last_error());
    return 1;
  }
  printf("ppkit %s\n%s\n", ppkit_version(), info);
  free(info);
  return ppkit_finalize();
}
