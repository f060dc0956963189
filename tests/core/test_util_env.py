"""tf.util's Python-meaningful helpers and tf.env()'s get_async / get_string / evaluate_flag, against plain
Python computations; unregister_gradient."""

import pytest

import webtf as tf
from tests.harness.aio import run_sync


def test_util():
    u = tf.util
    assert u.size_from_shape([2, 3, 4]) == 24 and u.size_from_shape([]) == 1
    assert u.compute_strides([2, 3, 4]) == [12, 4] and u.compute_strides([5]) == []
    for i in range(24):
        loc = u.index_to_loc(i, 3, [12, 4])
        assert loc == [i // 12, (i // 4) % 3, i % 4] and u.loc_to_index(loc, 3, [12, 4]) == i
    assert u.arrays_equal([1, 2], [1, 2]) and not u.arrays_equal([1, 2], [1, 3])
    assert u.arrays_equal_with_null([None, 2], [5, 2])
    assert u.infer_from_implicit_shape([2, -1, 3], 24) == [2, 4, 3]
    with pytest.raises(ValueError, match="fractional"):
        u.infer_from_implicit_shape([5, -1], 24)
    assert u.flatten([[1, [2, 3]], [4]]) == [1, 2, 3, 4]
    assert u.to_nested_array([2, 3], list(range(6))) == [[0, 1, 2], [3, 4, 5]]
    assert u.squeeze_shape([1, 3, 1, 2]) == {"new_shape": [3, 2], "kept_dims": [1, 3]}
    assert u.squeeze_shape([1, 3, 1], [0]) == {"new_shape": [3, 1], "kept_dims": [1, 2]}
    assert u.parse_axis_param(-1, [2, 3]) == [1] and u.parse_axis_param(None, [2, 3]) == [0, 1]
    assert u.bytes_per_element("float32") == 4 and u.bytes_per_element("bool") == 1
    assert u.nearest_divisor(12, 5) == 6 and u.nearest_larger_even(7) == 8
    assert u.size_to_squarish_shape(10) == [4, 3] and u.dist_squared([0, 0], [3, 4]) == 25
    assert u.infer_dtype([1, 2]) == "int32" and u.infer_dtype([1.5]) == "float32" and u.is_valid_dtype("bool")
    assert u.has_encoding_loss("float32", "int32") and not u.has_encoding_loss("int32", "float32")
    a, b = list(range(20)), list(range(20))
    u.shuffle_combo(a, b)
    assert a == b and sorted(a) == list(range(20))
    assert sorted(u.create_shuffled_indices(7)) == list(range(7))
    u.assert_shapes_match([1, 2], [1, 2])
    with pytest.raises(ValueError, match="Shapes \\[1, 2\\] and \\[2\\] must match"):
        u.assert_shapes_match([1, 2], [2])
    with pytest.raises(ValueError, match="boom"):
        u.assert_(False, lambda: "boom")
    assert 2 <= u.rand_uniform(2, 3) < 3


def test_env_methods():
    env = tf.env()
    assert run_sync(env.get_async("IS_BROWSER")) is False
    assert env.evaluate_flag("IS_BROWSER") is False
    with pytest.raises(TypeError, match="not a string"):
        env.get_string("IS_BROWSER")
    with pytest.raises(ValueError, match="no evaluation function"):
        env.evaluate_flag("NO_SUCH_FLAG")


def test_unregister_gradient():
    config = tf.get_gradient("Acosh")
    assert config is not None
    tf.unregister_gradient("Acosh")
    try:
        assert tf.get_gradient("Acosh") is None
    finally:
        tf.register_gradient(config)
    assert tf.get_gradient("Acosh") is config
