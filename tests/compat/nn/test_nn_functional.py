"""compat.nn.functional without PyTorch: closed-form values, PyTorch's conventions at
kinks and ties, error messages, gradcheck (finite differences) of the operations built
on the new primitives, and the primitives under ftrans's functional transforms."""
from __future__ import annotations

import math

import numpy as np
import pytest

import ftrans
import ftrans.compat as torch
from ftrans.compat import nn
from ftrans.compat.autograd import gradcheck, gradgradcheck
import ftrans.primitives as P

F = nn.functional


def t64(a, rg=True):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=rg)


def test_conv2d_closed_form():
    x = torch.arange(16.0).reshape(1, 1, 4, 4)
    w = torch.ones(1, 1, 2, 2)
    y = F.conv2d(x, w)
    want = np.array([[x.numpy()[0, 0, r:r + 2, c:c + 2].sum() for c in range(3)]
                     for r in range(3)])
    np.testing.assert_allclose(y.numpy()[0, 0], want)
    assert want[0, 0] == 10.0
    # padding 'same' keeps the size, stride halves it
    assert F.conv2d(x, torch.ones(3, 1, 3, 3), padding="same").shape == (1, 3, 4, 4)
    assert F.conv2d(x, torch.ones(3, 1, 3, 3), stride=2, padding=1).shape == (1, 3, 2, 2)


def test_conv_transpose_is_adjoint_of_conv():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((2, 3, 7, 6)))
    w = torch.tensor(rng.standard_normal((4, 3, 3, 2)))
    y = torch.tensor(rng.standard_normal((2, 4, 4, 4)))
    # <conv(x), y> == <x, conv_transpose(y)> with the same weight (shape (C_in, C_out, k))
    lhs = float((F.conv2d(x, w, stride=2, padding=1) * y).sum())
    ct = F.conv_transpose2d(y, w, stride=2, padding=1)
    assert ct.shape == x.shape
    assert math.isclose(lhs, float((x * ct).sum()), rel_tol=1e-12)


def test_max_pool_ties_go_to_first_maximum():
    x = t64([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 5.0, 5.0]]]])
    y = F.max_pool2d(x, 2)
    np.testing.assert_array_equal(y.detach().numpy(), [[[[3.0, 5.0]]]])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 1, 0, 0], [0, 0, 1, 0]]]])
    _, idx = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), [[[[1, 6]]]])
    assert idx.dtype == torch.int64
    # overlapping windows: a shared maximum collects the gradient of every window
    z = t64([[[0.0, 4.0, 1.0, 2.0]]])
    F.max_pool1d(z, 2, stride=1).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [[[0, 2, 0, 1]]])


def test_max_pool_nan_propagates():
    x = torch.tensor([[[1.0, float("nan"), 0.0, 2.0]]])
    assert np.isnan(F.max_pool1d(x, 2).numpy()[0, 0, 0])


def test_avg_pool_divisors():
    x = torch.ones(1, 1, 3, 3)
    incl = F.avg_pool2d(x, 2, stride=2, padding=1)
    np.testing.assert_allclose(incl.numpy()[0, 0], [[0.25, 0.5], [0.5, 1.0]])
    excl = F.avg_pool2d(x, 2, stride=2, padding=1, count_include_pad=False)
    np.testing.assert_allclose(excl.numpy()[0, 0], np.ones((2, 2)))
    assert F.avg_pool2d(x, 2, ceil_mode=True).shape == (1, 1, 2, 2)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(torch.arange(6.0).reshape(1, 1, 2, 3),
                                                     1).numpy(), [[[[2.5]]]])


def test_pool_errors():
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.max_pool2d(torch.ones(1, 1, 1, 1), 3)


def test_conv_errors():
    with pytest.raises(RuntimeError, match="expected input\\[1, 2, 5, 5\\] to have 3 channels"):
        F.conv2d(torch.ones(1, 2, 5, 5), torch.ones(4, 3, 3, 3))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        F.conv2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 3, 3))
    with pytest.raises(RuntimeError, match="should be the same"):
        F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.float64), torch.ones(1, 1, 2, 2))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)


def test_loss_closed_forms():
    z = torch.zeros(4, 5, requires_grad=True)
    y = torch.tensor([0, 1, 2, 3])
    loss = F.cross_entropy(z, y)
    assert math.isclose(float(loss), math.log(5), rel_tol=1e-6)
    loss.backward()
    want = np.full((4, 5), 0.2)
    want[np.arange(4), y.numpy()] -= 1
    np.testing.assert_allclose(z.grad.numpy(), want / 4, rtol=1e-6)
    # ignore_index: the ignored row neither counts in the mean nor gets a gradient
    z2 = t64(np.random.default_rng(0).standard_normal((3, 4)))
    l_all = F.cross_entropy(z2, torch.tensor([1, 2, 3]), reduction="none")
    l_ign = F.cross_entropy(z2, torch.tensor([1, -100, 3]))
    assert math.isclose(float(l_ign), float(l_all[[0, 2]].mean()), rel_tol=1e-12)
    l_ign.backward()
    assert np.all(z2.grad.numpy()[1] == 0)
    # huber / smooth_l1 pieces
    d = torch.tensor([0.5, 3.0])
    np.testing.assert_allclose(F.huber_loss(d, torch.zeros(2), reduction="none").numpy(),
                               [0.125, 2.5])
    np.testing.assert_allclose(F.smooth_l1_loss(d, torch.zeros(2), beta=2.0,
                                                reduction="none").numpy(), [0.0625, 2.0])
    # BCE clamps log at -100
    assert math.isclose(float(F.binary_cross_entropy(torch.tensor([0.0]), torch.tensor([1.0]))),
                        100.0)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
    # BCE with logits equals BCE of the sigmoid
    x = torch.tensor([-2.0, 0.0, 3.0], dtype=torch.float64)
    t = torch.tensor([0.0, 1.0, 0.3], dtype=torch.float64)
    assert math.isclose(float(F.binary_cross_entropy_with_logits(x, t)),
                        float(F.binary_cross_entropy(torch.sigmoid(x), t)), rel_tol=1e-12)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.mse_loss(x, t, reduction="avg")


def test_activation_kinks_follow_torch():
    x = t64([0.0])
    F.relu(x).sum().backward()
    assert float(x.grad) == 0.0
    x = t64([0.0])
    F.leaky_relu(x, 0.2).sum().backward()
    assert float(x.grad) == pytest.approx(0.2)
    x = t64([0.0])
    F.elu(x, 0.5).sum().backward()
    assert float(x.grad) == pytest.approx(0.5)
    x = t64([0.0])
    F.logsigmoid(x).sum().backward()
    assert float(x.grad) == pytest.approx(0.5)
    big = t64([1000.0, -1000.0])
    F.softplus(big).sum().backward()
    np.testing.assert_allclose(big.grad.numpy(), [1.0, 0.0])
    np.testing.assert_allclose(F.gelu(torch.tensor([1.0], dtype=torch.float64)).numpy(),
                               [0.5 * (1 + math.erf(1 / math.sqrt(2)))])


def test_batch_norm_normalizes_and_updates():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((8, 3, 2, 2)) * 3 + 1)
    bn = nn.BatchNorm2d(3).double()
    y = bn(x).detach().numpy()
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3)), 1, rtol=1e-4)
    xn = x.numpy()
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * xn.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(bn.running_var.numpy(),
                               0.9 + 0.1 * xn.var(axis=(0, 2, 3), ddof=1))
    assert int(bn.num_batches_tracked) == 1
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(torch.ones(1, 3))
    with pytest.raises(ValueError, match="expected 4D input"):
        bn(torch.ones(2, 3))


def test_dropout_statistics_and_modes():
    torch.manual_seed(0)
    x = torch.ones(20000)
    y = F.dropout(x, 0.25)
    kept = y.numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y.numpy()[kept], 1 / 0.75)
    assert F.dropout(x, 0.25, training=False) is x
    assert float(F.dropout(x, 1.0).abs().sum()) == 0.0
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_embedding_padding_row_gets_no_gradient():
    emb = nn.Embedding(4, 2, padding_idx=1)
    out = emb(torch.tensor([[1, 2], [1, 3]]))
    np.testing.assert_array_equal(out.detach().numpy()[:, 0], 0)
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy(), [[0, 0], [0, 0], [1, 1], [1, 1]])
    with pytest.raises(RuntimeError, match="indices"):
        emb(torch.tensor([0.5]))


@pytest.mark.parametrize("name,fn,shapes", [
    ("conv2d", lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=1, dilation=(1, 2)),
     [(2, 2, 5, 6), (3, 2, 2, 3)]),
    ("conv1d_groups", lambda x, w: F.conv1d(x, w, groups=2, padding=2), [(1, 4, 6), (4, 2, 3)]),
    ("conv_transpose2d", lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1),
     [(1, 2, 3, 3), (2, 3, 2, 2)]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2, stride=1, padding=1), [(2, 2, 4, 4)]),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False,
                                          ceil_mode=True), [(1, 2, 5, 6)]),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), [(1, 2, 5, 4)]),
    ("layer_norm", lambda x, w: F.layer_norm(x, (4,), w), [(3, 4), (4,)]),
    ("group_norm", lambda x: F.group_norm(x, 2), [(2, 4, 3)]),
    ("gelu", lambda x: F.gelu(x), [(3, 4)]),
    ("linear", lambda x, w, b: F.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)]),
    ("interpolate_bilinear", lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear"),
     [(1, 2, 3, 4)]),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), [(1, 2, 5, 4)]),
    ("instance_norm", lambda x, w: F.instance_norm(x, weight=w), [(2, 3, 5), (3,)]),
    ("prelu", lambda x, w: F.prelu(x, w), [(2, 3, 4), (3,)]),
    ("cosine_similarity", lambda a, b: F.cosine_similarity(a, b), [(3, 4), (3, 4)]),
    ("mish_selu", lambda x: F.mish(x) + F.selu(x), [(3, 4)]),
    ("linear_nobias", lambda x, w: F.linear(x, w), [(3, 4), (2, 4)]),
])
def test_gradcheck(name, fn, shapes):
    rng = np.random.default_rng(3)
    # distinct, well-separated values keep max_pool away from ties
    args = [torch.tensor(rng.permutation(int(np.prod(s))).reshape(s) * 0.1
                         + rng.uniform(-0.01, 0.01, s), requires_grad=True) for s in shapes]
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_batch_norm_module_gradcheck():
    bn = nn.BatchNorm1d(3).double()
    x = torch.tensor(np.random.default_rng(1).standard_normal((5, 3)), requires_grad=True)
    def train(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True)

    def evalmode(x, w, b):
        return F.batch_norm(x, torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64),
                            torch.tensor([1.5, 0.5, 2.0], dtype=torch.float64), w, b)
    for fn in (train, evalmode):
        assert gradcheck(fn, [x, bn.weight, bn.bias])
        assert gradgradcheck(fn, [x, bn.weight, bn.bias])
    x4 = torch.tensor(np.random.default_rng(2).standard_normal((3, 2, 2, 3)), requires_grad=True)
    assert gradgradcheck(lambda x: F.batch_norm(x, None, None, training=True), [x4])


def test_primitives_under_functional_transforms():
    """conv + pooling inside ftrans.grad/vmap/jacfwd through ftrans.numpy-level code."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 1, 6, 6))
    w = rng.standard_normal((2, 1, 3, 3))

    def loss(w, x):
        y = P.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)))
        y = P.reduce_window_max(y, (1, 1, 2, 2), (1, 1, 2, 2))
        return P.reduce_sum(P.mul(y, y), tuple(range(4)))

    g = ftrans.grad(loss)(w, x)
    per = ftrans.vmap(ftrans.grad(loss), in_axes=(None, 0))(w, x[:, None])
    np.testing.assert_allclose(per.sum(0), g, rtol=1e-10)
    j = ftrans.jacfwd(loss)(w, x)
    np.testing.assert_allclose(j, g, rtol=1e-10)
    # NHWC / HWIO layouts through dimension_numbers
    y1 = P.conv_general_dilated(x, w, (1, 1), "SAME")
    y2 = P.conv_general_dilated(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), (1, 1), "SAME",
                                dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(y2.transpose(0, 3, 1, 2), y1, rtol=1e-12)


def test_forward_ad_through_conv():
    import ftrans.compat.autograd.forward_ad as fwAD
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((1, 2, 5, 5)))
    w = torch.tensor(rng.standard_normal((3, 2, 3, 3)))
    v = torch.tensor(rng.standard_normal((1, 2, 5, 5)))
    with fwAD.dual_level():
        y = F.max_pool2d(F.conv2d(fwAD.make_dual(x, v), w, padding=1), 2)
        jv = fwAD.unpack_dual(y).tangent
    eps = 1e-6
    fd = (F.max_pool2d(F.conv2d(x + eps * v, w, padding=1), 2)
          - F.max_pool2d(F.conv2d(x - eps * v, w, padding=1), 2)) / (2 * eps)
    np.testing.assert_allclose(jv.numpy(), fd.numpy(), rtol=1e-6, atol=1e-8)


def test_init_functions():
    torch.manual_seed(0)
    init = nn.init
    assert init.calculate_gain("relu") == math.sqrt(2)
    assert init.calculate_gain("tanh") == 5 / 3
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    assert init.calculate_gain("conv2d") == 1
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    w = torch.empty(200, 300)
    init.xavier_uniform_(w, gain=2.0)
    a = 2.0 * math.sqrt(6 / 500)
    assert np.abs(w.numpy()).max() <= a and np.abs(w.numpy()).max() > 0.95 * a
    init.xavier_normal_(w)
    assert abs(w.numpy().std() - math.sqrt(2 / 500)) < 0.003
    init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")
    b = math.sqrt(2) * math.sqrt(3 / 200)
    assert np.abs(w.numpy()).max() <= b
    init.kaiming_normal_(w)
    assert abs(w.numpy().std() - math.sqrt(2 / 300)) < 0.003
    q = torch.empty(3, 5)
    init.orthogonal_(q, gain=2.0)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, 4 * np.eye(3), atol=1e-5)
    c = torch.empty(2, 2)
    assert init.constant_(c, 0.5) is c and np.all(c.numpy() == 0.5)
    assert np.all(init.zeros_(c).numpy() == 0) and np.all(init.ones_(c).numpy() == 1)
    init.uniform_(c, 2.0, 3.0)
    assert np.all((c.numpy() >= 2) & (c.numpy() <= 3))
    init.normal_(c, 10.0, 0.01)
    assert np.all(np.abs(c.numpy() - 10) < 0.1)
    p = nn.Parameter(torch.empty(3))
    init.uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(torch.empty(3))


def test_utils_clip_and_vectors():
    utils = nn.utils
    a = nn.Parameter(torch.tensor([3.0, 0.0]))
    b = nn.Parameter(torch.tensor([4.0]))
    a.grad = torch.tensor([3.0, 0.0])
    b.grad = torch.tensor([4.0])
    total = utils.clip_grad_norm_([a, b], 1.0)
    assert math.isclose(float(total), 5.0, rel_tol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), [0.6, 0.0], rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [0.8], rtol=1e-5)
    assert math.isclose(float(utils.clip_grad_norm_([a, b], 10.0, norm_type="inf")), 0.8,
                        rel_tol=1e-5)
    b.grad = torch.tensor([-4.0])
    utils.clip_grad_value_([a, b], 0.5)
    np.testing.assert_allclose(b.grad.numpy(), [-0.5])
    m = nn.Linear(3, 2)
    v = utils.parameters_to_vector(m.parameters())
    assert v.shape == (8,)
    utils.vector_to_parameters(torch.arange(8.0), m.parameters())
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(m.bias.detach().numpy(), [6.0, 7.0])
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        utils.vector_to_parameters([1.0], m.parameters())
    p = nn.Parameter(torch.ones(1))
    p.grad = torch.tensor([float("inf")])
    with pytest.raises(RuntimeError, match="non-finite"):
        utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)


def test_rnn_cell_closed_form():
    cell = nn.RNNCell(2, 1, bias=False).double()
    with torch.no_grad():
        cell.weight_ih.copy_(torch.tensor([[0.5, -1.0]]))
        cell.weight_hh.copy_(torch.tensor([[2.0]]))
    h = cell(torch.tensor([[1.0, 1.0]], dtype=torch.float64),
             torch.tensor([[0.25]], dtype=torch.float64))
    assert math.isclose(float(h), math.tanh(0.5 - 1.0 + 0.5), abs_tol=1e-15)
    gru = nn.GRU(2, 3)
    out, h = gru(torch.randn(4, 2))
    assert out.shape == (4, 3) and h.shape == (1, 3)
    np.testing.assert_allclose(out[-1].detach().numpy(), h[0].detach().numpy())


def test_batched_grads_through_cnn():
    """autograd.grad(is_grads_batched=True) runs the conv/batch-norm/pool formulas under
    ftrans.vmap; the result equals a loop of single backward passes."""
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(12, 2)).double()
    x = torch.randn(4, 1, 4, 4, dtype=torch.float64, requires_grad=True)
    y = m(x)
    g = torch.randn(5, 4, 2, dtype=torch.float64)
    gb, = torch.autograd.grad(y, x, g, is_grads_batched=True, retain_graph=True)
    loop = np.stack([torch.autograd.grad(y, x, g[i], retain_graph=True)[0].numpy()
                     for i in range(5)])
    np.testing.assert_allclose(gb.numpy(), loop, rtol=1e-12, atol=1e-14)


def test_linear_complex_and_node():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)),
                     requires_grad=True)
    w = torch.tensor(rng.standard_normal((2, 4)) + 1j * rng.standard_normal((2, 4)),
                     requires_grad=True)
    b = torch.tensor(rng.standard_normal(2) + 0j, requires_grad=True)
    assert gradcheck(F.linear, [x, w, b])
    y = F.linear(x, w, b)
    assert y.grad_fn.name() == "AddmmBackward0"
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        F.linear(torch.ones(2, 3), torch.ones(2, 4))
