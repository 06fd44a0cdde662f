"""Every torch.nn module, functional and loss of compat.nn against PyTorch 2.13: same
state_dict, same inputs -> same outputs, input gradients, parameter gradients and
buffers, in float64 (rtol 1e-10) and float32."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nn_diff import X, I, Bool, run_both, needs_torch  # noqa: E402

pytestmark = needs_torch

DTYPES = ["float64", "float32"]

# (id, make(T) -> module, input specs, train mode)
MODULES = [
    ("Identity", lambda T: T.nn.Identity(3, k=1), [X(2, 3)], False),
    ("Linear", lambda T: T.nn.Linear(5, 3), [X(4, 5)], False),
    ("Linear_nobias_3d", lambda T: T.nn.Linear(5, 3, bias=False), [X(2, 4, 5)], False),
    ("Bilinear", lambda T: T.nn.Bilinear(3, 4, 2), [X(5, 3), X(5, 4)], False),
    ("Flatten", lambda T: T.nn.Flatten(), [X(2, 3, 4)], False),
    ("Unflatten", lambda T: T.nn.Unflatten(1, (2, 3)), [X(4, 6)], False),
    ("Embedding", lambda T: T.nn.Embedding(7, 3), [I(0, 7, 2, 5)], False),
    ("Embedding_padding", lambda T: T.nn.Embedding(6, 3, padding_idx=2),
     [I(0, 6, 0, values=[[0, 2, 2], [5, 1, 2]])], False),
    ("Conv1d", lambda T: T.nn.Conv1d(3, 4, 3, stride=2, padding=1), [X(2, 3, 9)], False),
    ("Conv1d_same_dilated", lambda T: T.nn.Conv1d(2, 2, 3, padding="same", dilation=2),
     [X(2, 2, 7)], False),
    ("Conv1d_unbatched", lambda T: T.nn.Conv1d(2, 3, 2), [X(2, 6)], False),
    ("Conv2d", lambda T: T.nn.Conv2d(3, 4, 3, padding=1), [X(2, 3, 6, 5)], False),
    ("Conv2d_stride_groups", lambda T: T.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                                   groups=2, bias=False), [X(2, 4, 7, 6)],
     False),
    ("Conv2d_dilation", lambda T: T.nn.Conv2d(2, 3, 3, dilation=2, padding=2),
     [X(1, 2, 7, 7)], False),
    ("ConvTranspose2d", lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1,
                                                       output_padding=1), [X(2, 3, 4, 5)],
     False),
    ("ConvTranspose2d_groups_dilation", lambda T: T.nn.ConvTranspose2d(4, 6, 2, groups=2,
                                                                       dilation=2),
     [X(1, 4, 3, 3)], False),
    ("Conv2d_same_even_kernel", lambda T: T.nn.Conv2d(2, 3, (4, 3), padding="same",
                                                     dilation=(1, 2)), [X(1, 2, 6, 7)], False),
    ("ConvTranspose1d", lambda T: T.nn.ConvTranspose1d(2, 3, 3, stride=3), [X(2, 2, 4)], False),
    ("MaxPool1d", lambda T: T.nn.MaxPool1d(3, stride=2, padding=1), [X(2, 3, 9)], False),
    ("MaxPool2d", lambda T: T.nn.MaxPool2d(2), [X(2, 3, 6, 6)], False),
    ("MaxPool2d_ceil_pad", lambda T: T.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
     [X(2, 2, 6, 7)], False),
    ("MaxPool2d_dilation", lambda T: T.nn.MaxPool2d(2, stride=1, dilation=2), [X(1, 2, 5, 6)],
     False),
    ("AvgPool1d", lambda T: T.nn.AvgPool1d(3, stride=2, padding=1), [X(2, 3, 8)], False),
    ("AvgPool2d", lambda T: T.nn.AvgPool2d(2), [X(2, 3, 6, 6)], False),
    ("AvgPool2d_exclude_pad_ceil", lambda T: T.nn.AvgPool2d(3, stride=2, padding=1,
                                                            ceil_mode=True,
                                                            count_include_pad=False),
     [X(2, 2, 6, 7)], False),
    ("AvgPool2d_divisor", lambda T: T.nn.AvgPool2d(2, divisor_override=3), [X(1, 2, 4, 4)],
     False),
    ("AdaptiveAvgPool2d", lambda T: T.nn.AdaptiveAvgPool2d((3, 2)), [X(2, 3, 7, 5)], False),
    ("AdaptiveAvgPool2d_even", lambda T: T.nn.AdaptiveAvgPool2d(2), [X(2, 3, 6, 4)], False),
    ("AdaptiveAvgPool2d_none", lambda T: T.nn.AdaptiveAvgPool2d((None, 2)), [X(2, 3, 4, 5)],
     False),
    ("AdaptiveMaxPool2d", lambda T: T.nn.AdaptiveMaxPool2d((3, 2), return_indices=True),
     [X(2, 3, 7, 5)], False),
    ("AdaptiveMaxPool2d_even", lambda T: T.nn.AdaptiveMaxPool2d(2), [X(2, 3, 6, 4)], False),
    ("AdaptiveMaxPool1d_ties", lambda T: T.nn.AdaptiveMaxPool1d(4, return_indices=True),
     [X(2, 2, 9, lo=-1, hi=1)], False),
    ("AdaptiveAvgPool2d_one", lambda T: T.nn.AdaptiveAvgPool2d(1), [X(2, 3, 5, 5)], False),
    ("BatchNorm1d_train", lambda T: T.nn.BatchNorm1d(3), [X(6, 3)], True),
    ("BatchNorm1d_3d_train", lambda T: T.nn.BatchNorm1d(3, momentum=None), [X(4, 3, 5)], True),
    ("BatchNorm1d_eval", lambda T: T.nn.BatchNorm1d(3), [X(6, 3)], False),
    ("BatchNorm2d_train", lambda T: T.nn.BatchNorm2d(3, momentum=0.3), [X(4, 3, 3, 2)], True),
    ("BatchNorm2d_eval", lambda T: T.nn.BatchNorm2d(3), [X(4, 3, 3, 2)], False),
    ("BatchNorm2d_noaffine", lambda T: T.nn.BatchNorm2d(3, affine=False), [X(4, 3, 3, 2)], True),
    ("BatchNorm2d_nostats", lambda T: T.nn.BatchNorm2d(3, track_running_stats=False),
     [X(4, 3, 3, 2)], False),
    ("LayerNorm", lambda T: T.nn.LayerNorm(5), [X(3, 4, 5)], False),
    ("LayerNorm_2d", lambda T: T.nn.LayerNorm((4, 5), eps=1e-3), [X(3, 4, 5)], False),
    ("GroupNorm", lambda T: T.nn.GroupNorm(2, 4), [X(3, 4, 5)], False),
    ("Dropout_eval", lambda T: T.nn.Dropout(0.5), [X(3, 4)], False),
    ("Dropout_p0", lambda T: T.nn.Dropout(0.0), [X(3, 4)], True),
    ("ReLU", lambda T: T.nn.ReLU(), [X(3, 4)], False),
    ("LeakyReLU", lambda T: T.nn.LeakyReLU(0.2), [X(3, 4)], False),
    ("ELU", lambda T: T.nn.ELU(0.7), [X(3, 4)], False),
    ("GELU", lambda T: T.nn.GELU(), [X(3, 4)], False),
    ("GELU_tanh", lambda T: T.nn.GELU("tanh"), [X(3, 4)], False),
    ("SiLU", lambda T: T.nn.SiLU(), [X(3, 4)], False),
    ("Sigmoid", lambda T: T.nn.Sigmoid(), [X(3, 4)], False),
    ("Tanh", lambda T: T.nn.Tanh(), [X(3, 4)], False),
    ("Softplus", lambda T: T.nn.Softplus(beta=2.0, threshold=3.0), [X(3, 4)], False),
    ("Softmax", lambda T: T.nn.Softmax(dim=1), [X(3, 4)], False),
    ("LogSoftmax", lambda T: T.nn.LogSoftmax(dim=-1), [X(3, 4)], False),
    ("InstanceNorm2d", lambda T: T.nn.InstanceNorm2d(3), [X(2, 3, 4, 5)], False),
    ("InstanceNorm1d_affine_stats", lambda T: T.nn.InstanceNorm1d(3, affine=True,
                                                                  track_running_stats=True),
     [X(2, 3, 6)], True),
    ("InstanceNorm2d_unbatched", lambda T: T.nn.InstanceNorm2d(2), [X(2, 3, 4)], False),
    ("ZeroPad2d", lambda T: T.nn.ZeroPad2d((1, 0, 2, 1)), [X(1, 2, 3, 3)], False),
    ("ConstantPad1d", lambda T: T.nn.ConstantPad1d(2, 3.5), [X(2, 3, 4)], False),
    ("Upsample_nearest", lambda T: T.nn.Upsample(scale_factor=2), [X(1, 2, 3, 4)], False),
    ("Upsample_bilinear", lambda T: T.nn.Upsample(scale_factor=2, mode="bilinear"),
     [X(1, 2, 3, 4)], False),
    ("Upsample_bilinear_ac_size", lambda T: T.nn.Upsample(size=(5, 7), mode="bilinear",
                                                          align_corners=True),
     [X(1, 2, 3, 4)], False),
    ("CosineSimilarity", lambda T: T.nn.CosineSimilarity(), [X(3, 4), X(3, 4)], False),
    ("PairwiseDistance", lambda T: T.nn.PairwiseDistance(), [X(3, 4), X(3, 4)], False),
    ("ReLU6", lambda T: T.nn.ReLU6(), [X(3, 4, lo=-2, hi=8)], False),
    ("Hardtanh", lambda T: T.nn.Hardtanh(-0.5, 1.5), [X(3, 4)], False),
    ("PReLU", lambda T: T.nn.PReLU(3, init=0.1), [X(2, 3, 4)], False),
    ("SELU", lambda T: T.nn.SELU(), [X(3, 4)], False),
    ("CELU", lambda T: T.nn.CELU(0.5), [X(3, 4)], False),
    ("Mish", lambda T: T.nn.Mish(), [X(3, 4)], False),
    ("Hardsigmoid", lambda T: T.nn.Hardsigmoid(), [X(3, 4, lo=-5, hi=5)], False),
    ("Hardswish", lambda T: T.nn.Hardswish(), [X(3, 4, lo=-5, hi=5)], False),
    ("Softsign", lambda T: T.nn.Softsign(), [X(3, 4)], False),
    ("Tanhshrink", lambda T: T.nn.Tanhshrink(), [X(3, 4)], False),
    ("Threshold", lambda T: T.nn.Threshold(0.1, 20.0), [X(3, 4)], False),
    ("Softmin", lambda T: T.nn.Softmin(dim=1), [X(3, 4)], False),
    ("Sequential", lambda T: T.nn.Sequential(T.nn.Linear(4, 6), T.nn.Tanh(),
                                             T.nn.Linear(6, 2)), [X(5, 4)], False),
    ("RNN", lambda T: T.nn.RNN(3, 4), [X(5, 2, 3)], False),
    ("RNN_relu_2layers_bidir_bf", lambda T: T.nn.RNN(3, 4, 2, nonlinearity="relu",
                                                     batch_first=True, bidirectional=True),
     [X(2, 5, 3)], False),
    ("LSTM", lambda T: T.nn.LSTM(3, 4), [X(5, 2, 3)], False),
    ("LSTM_2layers_bidir", lambda T: T.nn.LSTM(3, 4, num_layers=2, bidirectional=True),
     [X(4, 2, 3)], False),
    ("LSTM_unbatched_nobias", lambda T: T.nn.LSTM(3, 2, bias=False), [X(4, 3)], False),
    ("GRU", lambda T: T.nn.GRU(3, 4, batch_first=True), [X(2, 5, 3)], False),
    ("GRU_2layers_bidir", lambda T: T.nn.GRU(3, 4, 2, bidirectional=True), [X(4, 2, 3)], False),
    ("RNNCell", lambda T: T.nn.RNNCell(3, 4), [X(2, 3), X(2, 4)], False),
    ("LSTMCell", lambda T: T.nn.LSTMCell(3, 4), [X(2, 3)], False),
    ("GRUCell", lambda T: T.nn.GRUCell(3, 4), [X(2, 3), X(2, 4)], False),
    ("MultiheadAttention", lambda T: T.nn.MultiheadAttention(6, 2), None, False),
    ("MultiheadAttention_bf_kdim", lambda T: T.nn.MultiheadAttention(6, 3, kdim=4, vdim=5,
                                                                     batch_first=True),
     None, False),
    ("TransformerEncoderLayer", lambda T: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
     [X(5, 2, 8)], False),
    ("TransformerEncoderLayer_normfirst_gelu_bf",
     lambda T: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                            batch_first=True, norm_first=True),
     [X(2, 5, 8)], False),
    ("CrossEntropyLoss", lambda T: T.nn.CrossEntropyLoss(), [X(4, 5), I(0, 5, 4)], False),
    ("CrossEntropyLoss_weight_ignore_smooth",
     lambda T: T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0]),
                                     ignore_index=1, label_smoothing=0.2),
     [X(6, 5), I(0, 5, 0, values=[0, 1, 2, 3, 4, 1])], False),
    ("CrossEntropyLoss_probs", lambda T: T.nn.CrossEntropyLoss(label_smoothing=0.1),
     [X(4, 5), X(4, 5, lo=0.0, hi=1.0, grad=False)], False),
    ("CrossEntropyLoss_probs_weight_none",
     lambda T: T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5]), reduction="none"),
     [X(4, 3), X(4, 3, lo=0.0, hi=1.0, grad=False)], False),
    ("CrossEntropyLoss_spatial_sum", lambda T: T.nn.CrossEntropyLoss(reduction="sum"),
     [X(2, 4, 3, 2), I(0, 4, 2, 3, 2)], False),
    ("CrossEntropyLoss_unbatched", lambda T: T.nn.CrossEntropyLoss(), [X(5), I(0, 0, values=3)],
     False),
    ("NLLLoss_weight_ignore", lambda T: T.nn.NLLLoss(weight=T.tensor([1.0, 2.0, 3.0]),
                                                     ignore_index=0),
     [X(5, 3), I(0, 3, 0, values=[0, 1, 2, 2, 1])], False),
    ("NLLLoss_none", lambda T: T.nn.NLLLoss(reduction="none"), [X(5, 3), I(0, 3, 5)], False),
    ("MSELoss", lambda T: T.nn.MSELoss(), [X(3, 4), X(3, 4)], False),
    ("MSELoss_sum", lambda T: T.nn.MSELoss(reduction="sum"), [X(3, 4), X(3, 4)], False),
    ("L1Loss", lambda T: T.nn.L1Loss(), [X(3, 4), X(3, 4)], False),
    ("L1Loss_none", lambda T: T.nn.L1Loss(reduction="none"), [X(3, 4), X(3, 4)], False),
    ("SmoothL1Loss", lambda T: T.nn.SmoothL1Loss(beta=0.5), [X(3, 4), X(3, 4)], False),
    ("SmoothL1Loss_beta0", lambda T: T.nn.SmoothL1Loss(beta=0.0), [X(3, 4), X(3, 4)], False),
    ("HuberLoss", lambda T: T.nn.HuberLoss(delta=0.7), [X(3, 4), X(3, 4)], False),
    ("BCELoss", lambda T: T.nn.BCELoss(), [X(3, 4, lo=0.05, hi=0.95),
                                           X(3, 4, lo=0.0, hi=1.0)], False),
    ("BCELoss_weight_sum", lambda T: T.nn.BCELoss(weight=T.tensor([1.0, 2.0, 0.5, 1.0]),
                                                  reduction="sum"),
     [X(3, 4, lo=0.05, hi=0.95), X(3, 4, lo=0.0, hi=1.0, grad=False)], False),
    ("BCEWithLogitsLoss", lambda T: T.nn.BCEWithLogitsLoss(), [X(3, 4, lo=-5, hi=5),
                                                               X(3, 4, lo=0.0, hi=1.0)], False),
    ("BCEWithLogitsLoss_pos_weight",
     lambda T: T.nn.BCEWithLogitsLoss(pos_weight=T.tensor([1.0, 2.0, 3.0, 0.5]),
                                      weight=T.tensor([0.5, 1.0, 1.0, 2.0])),
     [X(3, 4, lo=-30, hi=30), X(3, 4, lo=0.0, hi=1.0, grad=False)], False),
    ("KLDivLoss_batchmean", lambda T: T.nn.KLDivLoss(reduction="batchmean"),
     [X(3, 4, lo=-3, hi=0), X(3, 4, lo=0.0, hi=1.0)], False),
    ("KLDivLoss_log_target", lambda T: T.nn.KLDivLoss(reduction="sum", log_target=True),
     [X(3, 4, lo=-3, hi=0), X(3, 4, lo=-3, hi=0)], False),
    ("KLDivLoss_mean_zero_target", lambda T: T.nn.KLDivLoss(),
     [X(2, 3, lo=-3, hi=0), X(2, 3, lo=0.0, hi=0.0, grad=False)], False),
]


def _mha_specs(case_id):
    if case_id == "MultiheadAttention":
        return [X(4, 2, 6), X(5, 2, 6), X(5, 2, 6)]
    return [X(2, 4, 6), X(2, 5, 4), X(2, 5, 5)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case_id,make,specs,train", MODULES, ids=[m[0] for m in MODULES])
def test_module_matches_torch(case_id, make, specs, train, dtype):
    if specs is None:
        specs = _mha_specs(case_id)
    run_both(make, specs, dtype, train=train, key=case_id)


def test_mha_masks_and_weights():
    def call(T, m, q, mask):
        kpm = T.tensor([[False, False, True, False, False], [False, True, False, False, True]])
        return m(q, q, q, key_padding_mask=kpm, attn_mask=mask > 0.5,
                 average_attn_weights=False)
    run_both(lambda T: T.nn.MultiheadAttention(6, 2), [X(5, 2, 6), X(5, 5, lo=0, hi=0.6,
                                                                        grad=False)],
             "float64", call=call, key="mha_masks")


def test_batchnorm_running_stats_over_steps():
    def call(T, m, x):
        outs = []
        for k in range(3):
            outs.append(m(x * (k + 1.0) + k))
        m.eval()
        outs.append(m(x))
        return outs
    run_both(lambda T: T.nn.BatchNorm2d(3, momentum=0.2), [X(4, 3, 2, 2)], "float64",
             train=True, call=call, key="bn_steps")


def test_lstm_with_initial_state():
    def call(T, m, x, h, c):
        return m(x, (h, c))
    run_both(lambda T: T.nn.LSTM(3, 4, 2), [X(5, 2, 3), X(2, 2, 4), X(2, 2, 4)], "float64",
             call=call, key="lstm_h0")


def test_gru_unbatched_with_state():
    run_both(lambda T: T.nn.GRU(3, 4, bidirectional=True), [X(5, 3), X(2, 4)], "float64",
             key="gru_h0")


# functional-only entry points (no module)
FUNCTIONAL = [
    ("linear", lambda T, x, w, b: T.nn.functional.linear(x, w, b), [X(3, 4), X(2, 4), X(2)]),
    ("conv2d", lambda T, x, w: T.nn.functional.conv2d(x, w, stride=2, padding=1),
     [X(2, 3, 5, 5), X(4, 3, 3, 3)]),
    ("conv2d_groups", lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, groups=3),
     [X(2, 3, 5, 5), X(6, 1, 2, 2), X(6)]),
    ("conv_transpose2d", lambda T, x, w: T.nn.functional.conv_transpose2d(x, w, stride=2),
     [X(1, 3, 3, 3), X(3, 2, 3, 3)]),
    ("max_pool2d_indices", lambda T, x: T.nn.functional.max_pool2d(x, 2, return_indices=True),
     [X(2, 2, 4, 6)]),
    ("max_pool2d_nan_indices", lambda T, x: T.nn.functional.max_pool2d(
        x.masked_fill(x > 1.2, float("nan")), 3, stride=2, padding=1, return_indices=True),
     [X(2, 2, 6, 5)]),
    ("max_pool1d_ceil_indices", lambda T, x: T.nn.functional.max_pool1d(
        x.round(), 2, ceil_mode=True, return_indices=True), [X(2, 7)]),
    ("max_pool2d_ties", lambda T, x: T.nn.functional.max_pool2d(x.round(), 3, stride=1),
     [X(2, 2, 5, 5)]),
    ("avg_pool2d", lambda T, x: T.nn.functional.avg_pool2d(x, (2, 3), stride=(1, 2),
                                                           padding=(1, 1)),
     [X(2, 2, 5, 7)]),
    ("adaptive_max_pool2d_ties", lambda T, x: T.nn.functional.adaptive_max_pool2d(
        x.round(), (3, 2), return_indices=True), [X(2, 2, 7, 5)]),
    ("adaptive_avg_pool1d", lambda T, x: T.nn.functional.adaptive_avg_pool1d(x, 3),
     [X(2, 2, 7)]),
    ("batch_norm_fn", lambda T, x, rm, rv, w, b: T.nn.functional.batch_norm(
        x, rm.detach().clone(), rv.detach().clone(), w, b, training=True, momentum=0.3),
     [X(5, 3), X(3), X(3, lo=0.5, hi=2.0), X(3), X(3)]),
    ("layer_norm", lambda T, x, w, b: T.nn.functional.layer_norm(x, (4,), w, b),
     [X(3, 4), X(4), X(4)]),
    ("group_norm", lambda T, x: T.nn.functional.group_norm(x, 3), [X(2, 6, 4)]),
    ("embedding", lambda T, i, w: T.nn.functional.embedding(i, w, padding_idx=0),
     [I(0, 4, 2, 3), X(4, 3)]),
    ("one_hot", lambda T, i: T.nn.functional.one_hot(i, 5), [I(0, 5, 2, 3)]),
    ("pad", lambda T, x: T.nn.functional.pad(x, (1, 2, 0, 1), value=0.5), [X(2, 3, 4)]),
    ("pad_negative", lambda T, x: T.nn.functional.pad(x, (-1, 2)), [X(2, 4)]),
    ("relu", lambda T, x: T.nn.functional.relu(x), [X(3, 4)]),
    ("interpolate_nearest_size", lambda T, x: T.nn.functional.interpolate(x, size=(5, 3)),
     [X(1, 2, 3, 4)]),
    ("interpolate_linear_down", lambda T, x: T.nn.functional.interpolate(
        x, scale_factor=0.6, mode="linear"), [X(2, 2, 7)]),
    ("kinks_at_bounds", lambda T, x: (T.nn.functional.hardtanh(x.round()),
                                      T.nn.functional.relu6(x.round() + 4),
                                      T.nn.functional.hardswish(x.round() * 3),
                                      T.nn.functional.hardsigmoid(x.round() * 3),
                                      T.nn.functional.threshold(x.round(), 1.0, -1.0)),
     [X(4, 5)]),
    ("leaky_relu", lambda T, x: T.nn.functional.leaky_relu(x, 0.3), [X(3, 4)]),
    ("elu_large", lambda T, x: T.nn.functional.elu(x), [X(3, 4, lo=-800, hi=800)]),
    ("gelu", lambda T, x: T.nn.functional.gelu(x), [X(3, 4)]),
    ("silu", lambda T, x: T.nn.functional.silu(x), [X(3, 4)]),
    ("softplus_large", lambda T, x: T.nn.functional.softplus(x), [X(3, 4, lo=-50, hi=800)]),
    ("logsigmoid", lambda T, x: T.nn.functional.logsigmoid(x), [X(3, 4, lo=-800, hi=800)]),
    ("softmax", lambda T, x: T.nn.functional.softmax(x, dim=0), [X(3, 4)]),
    ("log_softmax", lambda T, x: T.nn.functional.log_softmax(x, dim=1), [X(3, 4)]),
    ("sigmoid_tanh", lambda T, x: (T.nn.functional.sigmoid(x), T.nn.functional.tanh(x)),
     [X(3, 4)]),
    ("mse_loss", lambda T, x, y: T.nn.functional.mse_loss(x, y), [X(3, 4), X(3, 4)]),
    ("l1_loss", lambda T, x, y: T.nn.functional.l1_loss(x, y, reduction="sum"),
     [X(3, 4), X(3, 4)]),
    ("smooth_l1_loss", lambda T, x, y: T.nn.functional.smooth_l1_loss(x, y, reduction="none"),
     [X(3, 4), X(3, 4)]),
    ("huber_loss", lambda T, x, y: T.nn.functional.huber_loss(x, y, delta=2.0),
     [X(3, 4), X(3, 4)]),
    ("cross_entropy", lambda T, x, y: T.nn.functional.cross_entropy(x, y, label_smoothing=0.3),
     [X(4, 5), I(0, 5, 4)]),
    ("nll_loss", lambda T, x, y: T.nn.functional.nll_loss(x.log_softmax(1), y),
     [X(4, 5), I(0, 5, 4)]),
    ("binary_cross_entropy", lambda T, x, y: T.nn.functional.binary_cross_entropy(x, y),
     [X(3, 4, lo=0.01, hi=0.99), X(3, 4, lo=0, hi=1)]),
    ("bce_with_logits", lambda T, x, y, pw: T.nn.functional.binary_cross_entropy_with_logits(
        x, y, pos_weight=pw), [X(3, 4), X(3, 4, lo=0, hi=1), X(4, lo=0.5, hi=2, grad=False)]),
    ("kl_div", lambda T, x, y: T.nn.functional.kl_div(x, y, reduction="sum"),
     [X(3, 4, lo=-3, hi=0), X(3, 4, lo=0, hi=1)]),
    ("bilinear", lambda T, a, b, w: T.nn.functional.bilinear(a, b, w),
     [X(3, 2), X(3, 4), X(5, 2, 4)]),
    ("normalize", lambda T, x: T.nn.functional.normalize(x, dim=1), [X(3, 4)]),
    ("sdpa_causal", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True), [X(2, 4, 3), X(2, 4, 3), X(2, 4, 5)]),
    ("sdpa_mask", lambda T, q, k, v, m: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m), [X(2, 4, 3), X(2, 5, 3), X(2, 5, 2), X(4, 5, grad=False)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case_id,fn,specs", FUNCTIONAL, ids=[f[0] for f in FUNCTIONAL])
def test_functional_matches_torch(case_id, fn, specs, dtype):
    run_both(lambda T: None, specs, dtype, call=lambda T, m, *xs: fn(T, *xs), key=case_id)


def test_full_backward_hook_matches_torch():
    import numpy as np
    import ftrans.compat as fc
    import torch

    def run(T):
        T.manual_seed(0)
        m = T.nn.Bilinear(3, 2, 4).double()
        rec = []
        m.register_full_backward_hook(lambda mod, gi, go: rec.append((gi, go)))
        a = T.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        b = T.tensor(np.linspace(0, 2, 4).reshape(2, 2))          # no grad
        out = m(a, b)
        out.backward(T.tensor(np.arange(8.0).reshape(2, 4)))
        gi, go = rec[0]
        return m, [None if g is None else g.detach().numpy() for g in gi], go[0].numpy()

    tm, tgi, tgo = run(torch)
    fm, fgi, fgo = None, None, None
    import ftrans.compat as fc2
    fc2.manual_seed(0)
    fm = fc2.nn.Bilinear(3, 2, 4).double()
    fm.load_state_dict({k: fc2.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rec = []
    fm.register_full_backward_hook(lambda mod, gi, go: rec.append((gi, go)))
    a = fc2.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
    b = fc2.tensor(np.linspace(0, 2, 4).reshape(2, 2))
    fm(a, b).backward(fc2.tensor(np.arange(8.0).reshape(2, 4)))
    gi, go = rec[0]
    assert len(gi) == len(tgi) == 2
    np.testing.assert_array_equal(gi[1].numpy(), tgi[1])      # zeros, as torch
    np.testing.assert_allclose(gi[0].numpy(), tgi[0], rtol=1e-12)
    np.testing.assert_allclose(go[0].numpy(), tgo, rtol=1e-12)


def test_erf_matches_torch():
    run_both(lambda T: None, [X(3, 4)], "float64", call=lambda T, m, x: (T.erf(x), x.erf()),
             key="erf")



def test_conv_transpose_output_size():
    run_both(lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), [X(1, 2, 4, 4)],
             "float64", call=lambda T, m, x: m(x, output_size=[8, 8]), key="ct_size")


def test_embedding_from_pretrained():
    def call(T, m, w, i):
        e = T.nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
        return e(i)
    run_both(lambda T: None, [X(5, 3), I(0, 5, 2, 4)], "float64", call=call, key="emb_pre")


def test_transformer_encoder_layer_masks():
    def call(T, m, x):
        kpm = T.tensor([[False, False, False, True, True], [False, True, False, False, False]])
        causal = T.ones(5, 5, dtype=T.bool).triu(1)
        return m(x, src_mask=causal, src_key_padding_mask=kpm)
    run_both(lambda T: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
             [X(2, 5, 8)], "float64", call=call, key="tel_masks")



def test_transformer_stacks_and_masks():
    def enc(T):
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        return T.nn.TransformerEncoder(layer, 2, norm=T.nn.LayerNorm(8),
                                       enable_nested_tensor=False)
    run_both(enc, [X(5, 2, 8)], "float64",
             call=lambda T, m, x: m(x, mask=T.nn.Transformer.generate_square_subsequent_mask(5,
                                                                              dtype=x.dtype)),
             key="tenc")

    def full(T):
        return T.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, batch_first=True)

    def call(T, m, src, tgt):
        kpm = T.tensor([[False, False, False, False, True, True],
                        [False, False, False, False, False, False]])
        return m(src, tgt, tgt_mask=m.generate_square_subsequent_mask(4, dtype=src.dtype),
                 memory_key_padding_mask=kpm)
    run_both(full, [X(2, 6, 8), X(2, 4, 8)], "float64", call=call, key="tfull")
    run_both(lambda T: T.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True),
             [X(4, 2, 8), X(6, 2, 8)], "float64", key="tdec")


def test_pad_sequence():
    def call(T, m, a, b, c):
        pad = T.nn.utils.rnn.pad_sequence
        return (pad([a, b, c]), pad([a, b, c], batch_first=True, padding_value=-1.0,
                                    padding_side="left"))
    run_both(lambda T: None, [X(3, 2), X(5, 2), X(1, 2)], "float64", call=call, key="padseq")
