#!/bin/bash
# The checks that need an NVIDIA GPU and CuPy, in one run (about 2.5 minutes on an H200
# with 16 cores): the GPU tests, notebook 08 executed (outputs written back), and
# benchmarks/bench_gpu.py.  Logs go to $OUT (default: ./gpu-checks).
#
#   bash tools/gpu_checks.sh                         # everything
#   STAGES="tests" bash tools/gpu_checks.sh          # a subset: info tests nb bench
#
# Wheels in .whl/ (e.g. nbclient, nbformat, ipykernel for the notebook, where the machine
# has no package index) are installed into /tmp/site first.
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-checks}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl > "$OUT/pip.log" 2>&1 || { echo "pip failed"; tail "$OUT/pip.log"; }
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
TESTS=${TESTS:-"tests/kernels/test_array_namespaces.py tests/kernels/test_cpu_kernels.py
  tests/compiler/test_compiler.py tests/transforms/test_jit.py tests/lax/test_lax_gpu.py
  tests/compat/test_cuda_misc.py tests/compat/test_serialization.py tests/compat/test_compat_tensor.py"}
for st in ${STAGES:-info tests nb bench}; do
  t0=$(date +%s)
  case $st in
  info)
    nvidia-smi -L
    python3 -c "import numpy, numba, cupy, torch, jax; print('numpy', numpy.__version__, 'numba', numba.__version__, 'cupy', cupy.__version__, 'torch', torch.__version__, 'jax', jax.__version__)"
    ;;
  tests)  # every test whose name says cupy, gpu or cuda in the files that have them
    timeout ${T_TESTS:-300} python3 -m pytest -p no:cacheprovider -q -n ${NW:-8} -rfE --tb=short \
      $TESTS -k "${K:-cupy or gpu or cuda}" > "$OUT/tests.log" 2>&1
    echo "tests rc=$?"; grep -E "^(FAILED|ERROR)" "$OUT/tests.log" | cut -c1-200 | head -40
    tail -1 "$OUT/tests.log"
    ;;
  nb)
    timeout ${T_NB:-300} python3 notebooks/run.py 08 -j 1 > "$OUT/nb.log" 2>&1
    echo "nb rc=$?"; tail -3 "$OUT/nb.log"; cp notebooks/08_gpu.ipynb "$OUT/"
    ;;
  bench)
    timeout ${T_BENCH:-300} python3 benchmarks/bench_gpu.py ${BENCH_ARGS:---repeats 20} > "$OUT/bench.log" 2>&1
    echo "bench rc=$?"; grep -v "^ *File\|^    " "$OUT/bench.log" | tail -40
    ;;
  esac
  echo "== stage $st: $(( $(date +%s) - t0 )) s"
done
