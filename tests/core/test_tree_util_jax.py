"""JAX's pytree API (issue 25 item 4, issue 19 item 3, issue 25 bug 2): key paths,
registration helpers, Partial, tree_transpose/reduce/all, the ftrans.tree namespace and
flatten_util.ravel_pytree, against JAX's behaviour and under grad, vmap and jit."""
import collections
import dataclasses

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import tree_util as tu
from ftrans.flatten_util import ravel_pytree

try:
    import jax
    import jax.tree_util as jtu
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover
    jax = jtu = None
needs_jax = pytest.mark.skipif(jax is None, reason="jax is not installed")

NT = collections.namedtuple("NT", "a b")


@dataclasses.dataclass
class Params:
    w: object
    b: object
    name: str = dataclasses.field(default="lin", metadata=dict(static=True))


class Keyed:
    def __init__(self, x, y):
        self.x, self.y = x, y


class Plain:
    def __init__(self, p, q):
        self.p, self.q = p, q


class WithDictAux:
    def __init__(self, w, meta):
        self.w, self.meta = w, meta


@tu.register_pytree_node_class
class Node:
    def __init__(self, u, scale):
        self.u, self.scale = u, scale

    def tree_flatten(self):
        return (self.u,), self.scale

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


def _keyed_flatten(k):
    return [(tu.GetAttrKey("x"), k.x), (tu.GetAttrKey("y"), k.y)], None


def _register(lib):
    lib.register_dataclass(Params)
    lib.register_pytree_with_keys(Keyed, _keyed_flatten if lib is tu else (
        lambda k: ([(jtu.GetAttrKey("x"), k.x), (jtu.GetAttrKey("y"), k.y)], None)),
        lambda aux, c: Keyed(*c))
    lib.register_pytree_node(Plain, lambda n: ((n.p, n.q), None), lambda aux, c: Plain(*c))
    lib.register_pytree_node(WithDictAux, lambda n: ((n.w,), n.meta),
                             lambda meta, c: WithDictAux(c[0], meta))


_register(tu)
if jax is not None:
    _register(jtu)
    jtu.register_pytree_node(Node, lambda n: n.tree_flatten(), Node.tree_unflatten)


def _trees():
    return [
        {"b": [1.0, (2.0, None)], "a": NT(3.0, 4.0)},
        [Params(1.5, 5.0), Keyed(6.0, [7.0])],
        (Plain(8.0, {"z": 9.0, "y": 10.0}), Node(11.0, 2)),
        (),
        3.0,
    ]


@needs_jax
@pytest.mark.parametrize("k", range(5))
def test_key_paths_and_keystr_match_jax(k):
    ours, theirs = _trees()[k], _trees()[k]
    pl, td = tu.tree_flatten_with_path(ours)
    jpl, _ = jtu.tree_flatten_with_path(theirs)
    assert [repr(p) for p, _ in pl] == [repr(p) for p, _ in jpl]
    assert [tu.keystr(p) for p, _ in pl] == [jtu.keystr(p) for p, _ in jpl]
    assert [tu.keystr(p, simple=True, separator="/") for p, _ in pl] == \
        [jtu.keystr(p, simple=True, separator="/") for p, _ in jpl]
    assert [x for _, x in pl] == jtu.tree_leaves(theirs) == tu.tree_leaves(ours)
    assert td == tu.tree_structure(ours)
    assert [p for p, _ in tu.tree_leaves_with_path(ours)] == [p for p, _ in pl]
    assert tu.tree_unflatten(td, [x for _, x in pl]).__class__ is ours.__class__
    got = tu.tree_leaves(tu.tree_map_with_path(lambda p, x: tu.keystr(p), ours))
    assert got == jtu.tree_leaves(jtu.tree_map_with_path(lambda p, x: jtu.keystr(p), theirs))


def test_key_entries():
    assert str(tu.SequenceKey(0)) + str(tu.DictKey("a")) + str(tu.GetAttrKey("x")) \
        == "[0]['a'].x"
    assert str(tu.FlattenedIndexKey(1)) == "[<flat index 1>]"
    assert tu.DictKey("a") == tu.DictKey("a") != tu.SequenceKey("a")
    assert hash(tu.GetAttrKey("x")) == hash(tu.GetAttrKey("x"))
    assert tu.SequenceKey(2).idx == 2 and tu.DictKey("k").key == "k"
    with pytest.raises(AttributeError):
        tu.SequenceKey(0).idx = 1
    out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x + y), {"a": 1, "b": [2]},
                                {"a": 10, "b": [20]})
    assert out == {"a": ("['a']", 11), "b": [("['b'][0]", 22)]}
    with pytest.raises(ValueError, match="structures differ"):
        tu.tree_map_with_path(lambda p, x, y: x, {"a": 1}, {"b": 1})


@needs_jax
def test_transpose_reduce_all_partial_match_jax():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0, 0))
    t = [(1, 2, 3), (4, 5, 6)]
    expected = jtu.tree_transpose(jtu.tree_structure([0, 0]), jtu.tree_structure((0, 0, 0)), t)
    assert tu.tree_transpose(outer, inner, t) == expected == ([1, 4], [2, 5], [3, 6])
    assert tu.tree_transpose(outer, None, t) == expected
    d = [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert tu.tree_transpose(outer, tu.tree_structure(d[0]), d) == \
        jtu.tree_transpose(jtu.tree_structure([0, 0]), jtu.tree_structure(d[0]), d)
    with pytest.raises(ValueError, match="inner structure"):
        tu.tree_transpose(outer, inner, [(1, 2, 3), (4, 5)])
    with pytest.raises(ValueError, match="outer structure"):
        tu.tree_transpose(outer, inner, ((1, 2, 3), (4, 5, 6)))
    add = lambda a, b: a + b  # noqa: E731
    assert tu.tree_reduce(add, {"a": 1, "b": (2, 3)}) == jtu.tree_reduce(add, {"a": 1, "b": (2, 3)})
    assert tu.tree_reduce(add, [], 10) == jtu.tree_reduce(add, [], 10) == 10
    with pytest.raises(TypeError):
        tu.tree_reduce(add, [])
    for t in ([True, 1, []], [True, 0], {}, [[]]):
        assert tu.tree_all(t) == jtu.tree_all(t)
    f = lambda a, b, c=0: a + 10 * b + 100 * c  # noqa: E731
    p, jp = tu.Partial(f, 1, c=3), jtu.Partial(f, 1, c=3)
    assert p(2) == jp(2) == 321
    assert tu.tree_leaves(p) == jtu.tree_leaves(jp) == [1, 3]
    q = tu.tree_map(lambda x: 2 * x, p)
    assert isinstance(q, tu.Partial) and q(2) == 2 + 20 + 600
    assert tu.Partial(p, 5)() == f(1, 5, c=3) and tu.tree_leaves(tu.Partial(p, 5)) == [1, 5, 3]


def test_tree_namespace_is_tree_util():
    pairs = {"map": "tree_map", "leaves": "tree_leaves", "structure": "tree_structure",
             "flatten": "tree_flatten", "unflatten": "tree_unflatten", "reduce": "tree_reduce",
             "all": "tree_all", "transpose": "tree_transpose",
             "map_with_path": "tree_map_with_path", "leaves_with_path": "tree_leaves_with_path",
             "flatten_with_path": "tree_flatten_with_path"}
    for short, long in pairs.items():
        assert getattr(ftrans.tree, short) is getattr(tu, long)
    assert sorted(ftrans.tree.__all__) == sorted(pairs)
    leaves, td = ftrans.tree.flatten({"a": 1, "b": 2})
    assert td.unflatten([3, 4]) == {"a": 3, "b": 4}


def test_register_dataclass_fields_and_errors():
    p = Params(1.0, 2.0, "x")
    leaves, td = tu.tree_flatten(p)
    assert leaves == [1.0, 2.0] and tu.tree_unflatten(td, [3.0, 4.0]) == Params(3.0, 4.0, "x")
    assert td != tu.tree_structure(Params(1.0, 2.0, "y"))  # meta fields are static

    @dataclasses.dataclass
    class Q:
        a: float
        b: float
    with pytest.raises(ValueError, match="init fields"):
        tu.register_dataclass(Q, data_fields=["a"], meta_fields=[])
    with pytest.raises(TypeError, match="both"):
        tu.register_dataclass(Q, data_fields=["a", "b"])
    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(Plain)


def _loss(tree):
    params, keyed, node, plain = tree
    return (fnp.sum(params.w ** 2) * params.b + keyed.x * fnp.sum(keyed.y[0])
            + node.u * node.scale + fnp.sin(plain.p) * plain.q["k"])


def _tree():
    return (Params(np.array([1.0, 2.0]), 3.0), Keyed(0.5, [np.array([1.0, 2.0])]),
            Node(1.5, 2.0), Plain(0.3, {"k": 4.0}))


def _expected_grad():
    return [2 * np.array([1.0, 2.0]) * 3.0, 5.0, 3.0, np.array([0.5, 0.5]), 2.0,
            np.cos(0.3) * 4.0, np.sin(0.3)]


def test_registered_classes_under_grad_jit_vmap():
    tree = _tree()
    for g in (ftrans.grad(_loss), ftrans.jit(ftrans.grad(_loss))):
        out = g(tree)
        assert isinstance(out[0], Params) and isinstance(out[1], Keyed)
        assert isinstance(out[2], Node) and isinstance(out[3], Plain)
        for a, b in zip(tu.tree_leaves(out), _expected_grad()):
            np.testing.assert_allclose(a, b, rtol=1e-14)
    batched = tu.tree_map(lambda x: np.stack([np.asarray(x), 2 * np.asarray(x)]), tree)
    vals = ftrans.vmap(_loss)(batched)
    np.testing.assert_allclose(vals, [_loss(tree), _loss(tu.tree_map(lambda x: 2 * x, tree))],
                               rtol=1e-14)
    np.testing.assert_allclose(ftrans.jit(_loss)(tree), _loss(tree), rtol=1e-14)
    # Partial passes through the transforms as a pytree argument
    scale = tu.Partial(lambda s, x: s * x, 3.0)
    np.testing.assert_allclose(ftrans.jit(lambda f, x: f(x))(scale, 2.0), 6.0)
    assert ftrans.grad(lambda f, x: f(x) * x)(scale, 2.0).args == (4.0,)


def test_dict_aux_data_under_jit():
    """Regression (issue 25 bug 2): ``unhashable type: 'dict'`` on main."""
    traces = []

    def f(p):
        traces.append(1)
        return fnp.sum(p.w ** 2) * p.meta["s"]

    jf = ftrans.jit(f)
    meta = {"s": 2.0, "names": ["w"], "arr": np.arange(3)}
    assert jf(WithDictAux(np.ones(3), meta)) == 6.0
    assert jf(WithDictAux(np.ones(3), {"arr": np.arange(3), "names": ["w"], "s": 2.0})) == 6.0
    assert len(traces) == 1                     # equal dicts: one cache entry
    assert jf(WithDictAux(np.ones(3), dict(meta, s=3.0))) == 9.0
    assert len(traces) == 2                     # a different dict: traced again
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(f))(WithDictAux(np.ones(3), meta)).w,
                               [4.0, 4.0, 4.0])
    a, b = (tu.tree_structure(WithDictAux(1.0, dict(meta))) for _ in range(2))
    assert a == b and hash(a) == hash(b)
    assert a != tu.tree_structure(WithDictAux(1.0, dict(meta, arr=np.arange(4))))


# ravel_pytree --------------------------------------------------------------------------
@needs_jax
@pytest.mark.parametrize("tree", [
    {"w": np.arange(6.0).reshape(2, 3), "b": np.array([1.0, 2.0])},
    [np.ones(2, np.float32), np.arange(3, dtype=np.int32)],
    [np.arange(2, dtype=np.int16), np.arange(3, dtype=np.int32), np.array([True])],
    (np.ones(2, np.float32), np.array([1 + 2j], np.complex64)),
    [np.ones(2, np.float32), np.float64(2.0)],
    {"a": 1.5, "b": [np.zeros((0, 2)), np.ones(1)]},
], ids=["f64", "f32+i32", "ints", "f32+c64", "f32+f64", "scalars"])
def test_ravel_pytree_matches_jax(tree):
    from jax.flatten_util import ravel_pytree as j_ravel
    flat, unravel = ravel_pytree(tree)
    jflat, junravel = j_ravel(tree)
    assert flat.dtype == jflat.dtype
    np.testing.assert_array_equal(flat, np.asarray(jflat))
    back, jback = unravel(flat), junravel(jflat)
    for a, b, orig in zip(tu.tree_leaves(back), jtu.tree_leaves(jback), tu.tree_leaves(tree)):
        assert np.shape(a) == np.shape(orig) and np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)


def test_ravel_pytree_errors_and_empty():
    flat, unravel = ravel_pytree({})
    assert flat.shape == (0,) and flat.dtype == np.float64 and unravel(flat) == {}
    flat, unravel = ravel_pytree([np.ones(2, np.float32), np.ones(1)])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        unravel(np.ones(4))
    with pytest.raises(TypeError, match="float64"):
        unravel(np.ones(3, np.float32))
    _, unravel1 = ravel_pytree([np.ones(2), np.ones(1)])  # one dtype: dtype-polymorphic
    assert unravel1(np.ones(3, np.complex128))[0].dtype == np.complex128


def test_ravel_pytree_under_transforms():
    from ftrans.testing import check_grads
    tree = {"w": np.array([[1.0, 2.0], [3.0, 4.0]]), "b": np.array([0.5, -1.0])}
    flat, unravel = ravel_pytree(tree)

    def loss(v):
        p = unravel(v)
        return fnp.sum(fnp.tanh(p["w"] @ p["b"]) ** 2)

    def via_tree(p):
        return ravel_pytree(p)[0]

    check_grads(loss, (flat,), order=2, modes=("fwd", "rev"))
    check_grads(lambda w, b: fnp.sum(fnp.sin(via_tree({"w": w, "b": b}))),
                (tree["w"], tree["b"]), order=2, modes=("fwd", "rev"))
    g = ftrans.grad(loss)(flat)
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(loss))(flat), g, rtol=1e-14)
    gt = ftrans.grad(lambda p: loss(ravel_pytree(p)[0]))(tree)
    np.testing.assert_allclose(ravel_pytree(gt)[0], g, rtol=1e-14)
    vs = np.stack([flat, 2 * flat])
    np.testing.assert_allclose(ftrans.vmap(loss)(vs), [loss(flat), loss(2 * flat)], rtol=1e-14)
    np.testing.assert_allclose(ftrans.jit(via_tree)(tree), flat)
