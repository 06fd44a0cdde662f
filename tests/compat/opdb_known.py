"""op_db entries that do not pass yet (written by ``python tests/compat/opdb.py
--write-known tests/compat/opdb_known.py``): name -> status and first reason.
tests/compat/test_opdb.py expects exactly these to fail (strict: one that starts
passing must leave this list)."""

KNOWN = {
    'as_strided/partial_views': 'fail: float64: value[0]: values differ (max abs error 4.18, shape (2, 2), dtype torch.float64)',
    'as_strided_scatter': 'fail: float64: grad[0]: values differ (max abs error 0.126, shape (1,), dtype torch.float64)',
    'bernoulli': "missing: module 'ftrans.compat' has no attribute 'bernoulli'",
    'bfloat16': 'fail: float64: compat raises TypeError: Tensor.bfloat16(): compat has no bfloat16 dtype (NumPy has none); convert to float32/complex64 instead',
    'cat': "fail: error input: compat returns, torch raises RuntimeError matching 'unsupported operation'",
    'cauchy': "missing: type object 'Tensor' has no attribute 'cauchy_'",
    'chalf': 'fail: float64: compat raises TypeError: Tensor.chalf(): compat has no complex32 (chalf) dtype (NumPy has none); convert to float32/complex64 instead',
    'exponential': "missing: type object 'Tensor' has no attribute 'exponential_'",
    'gather': 'fail: error input: compat raises IndexError (index 1 is out of bounds for axis 0 with size 1), torch RuntimeError',
    'geometric': "missing: type object 'Tensor' has no attribute 'geometric_'",
    'hash_tensor': 'fail: float64: compat raises NotImplementedError: hash_tensor: compat has no uint64 dtype for the xor-reduced hash; compute it with NumPy on tensor.nu',
    'hstack': 'fail: error input: compat raises IndexError (list index out of range), torch RuntimeError',
    'index_select': 'fail: float64: compat raises IndexError: too many indices for array: array is 0-dimensional, but 1 were indexed',
    'linalg.norm/subgradients_at_zero': 'fail: float64: gradgrad[0]: values differ (max abs error nan, shape (5,), dtype torch.float64)',
    'log_normal': "missing: type object 'Tensor' has no attribute 'log_normal_'",
    'logcumsumexp': 'fail: float32: grad[0]: values differ (max abs error 0.00199, shape (5, 5, 5), dtype torch.float32)',
    'masked_select': "fail: error input: compat returns, torch raises RuntimeError matching 'unsupported operation'",
    'matrix_exp': 'fail: float32: value[0]: values differ (max abs error 0.113, shape (5, 5, 5), dtype torch.float32)',
    'max_pool2d_with_indices_backward': "missing: module 'ftrans.compat.nn.functional' has no attribute 'max_pool2d_with_indices'",
    'multinomial': "missing: module 'ftrans.compat' has no attribute 'multinomial'",
    'native_dropout_backward': "missing: ftrans.compat has no 'native_dropout_backward'",
    'nn.functional.ctc_loss': 'fail: float64: comparing raised RuntimeError: derivative for aten::_ctc_loss_backward is not implemented',
    'normal': "missing: module 'ftrans.compat' has no attribute 'normal'",
    'normal/number_mean': "missing: module 'ftrans.compat' has no attribute 'normal'",
    'take': "fail: error input: compat returns, torch raises RuntimeError matching 'unsupported operation'",
    'to_sparse': 'fail: float64: compat raises RuntimeError: to_sparse: compat tensors have only the strided (dense) layout; sparse layouts (torch.sparse_coo, sparse_cs',
    'triangular_solve': 'fail: float64: forward AD[0]: values differ (max abs error 70.7, shape (5, 1), dtype torch.float64)',
}
