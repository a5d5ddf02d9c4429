#!/usr/bin/env bash
# Installs what the Python package and its tests need into the python3 on
# PATH, from PyPI, when missing: nanobind and scikit-build-core (building),
# NumPy (arrays), SciPy (the FEM example's solver), pytest (tests).
set -euo pipefail
python=${PYTHON:-python3}
missing=()
for module in nanobind scikit_build_core numpy scipy pytest; do
  "$python" -c "import $module" 2>/dev/null || missing+=("${module//_/-}")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "ppkit python setup: all Python packages present"
  exit 0
fi
echo "ppkit python setup: installing ${missing[*]}"
"$python" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
