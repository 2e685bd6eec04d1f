"""Issue 10: one expression cannot take the server's memory, and Spark's answers for the small
cases, through stock PySpark. Each over-limit query fails before allocating, so the server answers
the next query at once."""
import pytest
from pyspark.errors import (
    ArithmeticException,
    ArrayIndexOutOfBoundsException,
    IllegalArgumentException,
    PySparkException,
)


def test_size_limits_fail_before_allocating(spark):
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT length(repeat('x', 2147483647))").collect()
    assert e.value.getCondition() == "UNABLE_TO_ACQUIRE_MEMORY"
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT length(lpad('x', 2147483647, 'ab'))").collect()
    assert e.value.getCondition() == "UNABLE_TO_ACQUIRE_MEMORY"
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT size(array_repeat(1, 2147483647))").collect()
    assert e.value.getCondition() == "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER"
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT size(array_repeat(1, 2000000000))").collect()
    assert e.value.getCondition() == "UNABLE_TO_ACQUIRE_MEMORY"
    assert spark.sql("SELECT length(repeat('ab', 3))").collect()[0][0] == 6


def test_format_string_conversion_error(spark):
    with pytest.raises(IllegalArgumentException) as e:
        spark.sql("SELECT format_string('%d', 'x')").collect()
    assert "d != org.apache.spark.unsafe.types.UTF8String" in str(e.value)


def test_round_underflow(spark):
    with pytest.raises(ArithmeticException) as e:
        spark.sql("SELECT round(1.5, -2147483648)").collect()
    assert "Underflow" in str(e.value)


def test_array_index_under_ansi(spark):
    with pytest.raises(ArrayIndexOutOfBoundsException) as e:
        spark.sql("SELECT array(1, 2)[5]").collect()
    assert e.value.getCondition() == "INVALID_ARRAY_INDEX"
    with pytest.raises(ArrayIndexOutOfBoundsException) as e:
        spark.sql("SELECT element_at(array(1, 2), 5)").collect()
    assert e.value.getCondition() == "INVALID_ARRAY_INDEX_IN_ELEMENT_AT"
    assert spark.sql("SELECT get(array(1, 2), 5), try_element_at(array(1, 2), 5)").collect()[0] == (None, None)
