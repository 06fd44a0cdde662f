"""op_db entries that do not pass yet (written by ``python tests/compat/opdb.py
--write-known tests/compat/opdb_known.py``): name -> status and first reason.
tests/compat/test_opdb.py expects exactly these to fail (strict: one that starts
passing must leave this list)."""

KNOWN = {
    'as_strided/partial_views': 'fail: float64: value[0]: values differ (max abs error 4.18, shape (2, 2), dtype torch.float64)',
    'as_strided_scatter': 'fail: float64: grad[0]: values differ (max abs error 0.126, shape (1,), dtype torch.float64)',
    'bfloat16': 'fail: float64: compat raises TypeError: Tensor.bfloat16(): compat has no bfloat16 dtype (NumPy has none); convert to float32/complex64 instead',
    'cat': "fail: error input: compat returns, torch raises RuntimeError matching 'the written-to tensor refer to a single memory location'",
    'chalf': 'fail: float64: compat raises TypeError: Tensor.chalf(): compat has no complex32 (chalf) dtype (NumPy has none); convert to float32/complex64 instead',
    'gather': "fail: error input: compat returns, torch raises RuntimeError matching 'unsupported operation'",
    'hash_tensor': 'fail: float64: compat raises NotImplementedError: hash_tensor: compat has no uint64 dtype for the xor-reduced hash; compute it with NumPy on tensor.nu',
    'linalg.norm/subgradients_at_zero': 'fail: float64: gradgrad[0]: values differ (max abs error nan, shape (5,), dtype torch.float64)',
    'to_sparse': 'fail: float64: compat raises RuntimeError: to_sparse: compat tensors have only the strided (dense) layout; sparse layouts (torch.sparse_coo, sparse_cs',
    'triangular_solve': 'fail: float64: forward AD[0]: values differ (max abs error 70.7, shape (5, 1), dtype torch.float64)',
}
