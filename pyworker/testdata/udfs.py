# Test UDFs for package pyworker's pool tests: pickles each function with its return type the way
# a Spark Connect client builds PythonUDF.command (pyspark/sql/connect/expressions.py:
# CloudPickleSerializer().dumps((func, return_type))) and prints them as JSON
# {"version": "<major.minor>", "commands": {name: base64 command}}.
import base64
import json
import os
import sys
import time

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pyspark.serializers import AutoBatchedSerializer, CloudPickleSerializer, CPickleSerializer
from pyspark.sql.streaming.readwriter import DataStreamWriter
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)


def scalar_pandas(a, b):  # SQL_SCALAR_PANDAS_UDF; b comes as a keyword argument
    return a * 10 + b


def scalar_pandas_iter(it):  # SQL_SCALAR_PANDAS_ITER_UDF
    for s in it:
        yield s * 2


def arrow_batched(s):  # SQL_ARROW_BATCHED_UDF: one Python value per row
    return None if s is None else s.upper() + "!"


def scalar_arrow(a):  # SQL_SCALAR_ARROW_UDF
    return pc.multiply(a, 3)


def scalar_arrow_iter(it):  # SQL_SCALAR_ARROW_ITER_UDF
    for a in it:
        yield pc.add(a, 100)


def map_pandas(it):  # SQL_MAP_PANDAS_ITER_UDF
    for df in it:
        even = df[df.id % 2 == 0]
        yield pd.DataFrame({"id": even.id, "sq": even.id * even.id})


def map_arrow(it):  # SQL_MAP_ARROW_ITER_UDF
    for b in it:
        yield pa.RecordBatch.from_pydict({"next": pc.add(b.column("id"), 1)})


def map_barrier(it):  # SQL_MAP_ARROW_ITER_UDF in barrier mode: syncs with its stage's tasks
    from pyspark import BarrierTaskContext

    tc = BarrierTaskContext.get()
    tc.barrier()
    gathered = ",".join(tc.allGather(str(tc.partitionId())))
    tc.barrier()
    for b in it:
        yield pa.RecordBatch.from_pydict({"id": b.column("id"), "all": [gathered] * b.num_rows})


def grouped_map_pandas(key, pdf):  # SQL_GROUPED_MAP_PANDAS_UDF
    return pd.DataFrame({"k": [key[0]], "total": [float(pdf.v.sum())], "n": [len(pdf)]})


def grouped_map_arrow(key, table):  # SQL_GROUPED_MAP_ARROW_UDF
    return pa.table({"k": [key[0].as_py()], "n": [table.num_rows], "top": [pc.max(table.column("v")).as_py()]})


def grouped_agg_pandas(v):  # SQL_GROUPED_AGG_PANDAS_UDF
    return v.mean()


def grouped_agg_arrow(v):  # SQL_GROUPED_AGG_ARROW_UDF
    return pc.sum(v).as_py()


def cogrouped_map_arrow(key, left, right):  # SQL_COGROUPED_MAP_ARROW_UDF
    return pa.table({"k": [key[0].as_py()], "nl": [left.num_rows], "nr": [right.num_rows]})


def cogrouped_map_pandas(key, left, right):  # SQL_COGROUPED_MAP_PANDAS_UDF
    return pd.DataFrame({"k": [key[0]], "nl": [len(left)], "nr": [len(right)]})


def plus_one(a):  # the inner function of a chain
    return a + 1


def times_ten(a):  # the outer function of a chain
    return a * 10


def raises(a):
    raise ValueError("boom from a pandas udf, %d rows" % len(a))


def sleeps(a):
    time.sleep(60)
    return a


def identity(a):
    return a


def python_type(a):  # SQL_BATCHED_UDF: the Python class each argument arrives as
    return type(a).__name__


def wrong_type(a):  # SQL_BATCHED_UDF: a str for a LongType result is NULL (makeFromJava)
    return "not a long"


def raises_row(a):  # SQL_BATCHED_UDF
    if a == 2:
        raise ValueError("boom from a batched udf at %d" % a)
    return a


def sum_args(a, b):  # SQL_BATCHED_UDF, two arguments
    return None if a is None or b is None else a + b


class FileWriter:  # NON_UDF: a foreach writer object logging its calls to $WEIR_TEST_OUT
    def open(self, partition_id, epoch_id):
        name = "writer-%d-%d" % (partition_id, epoch_id)
        self.out = open(os.path.join(os.environ["WEIR_TEST_OUT"], name), "w")
        self.out.write("open %d %d\n" % (partition_id, epoch_id))
        return True

    def process(self, row):
        if row.s == "boom":
            raise ValueError("boom from a foreach writer")
        self.out.write("process %r\n" % (row,))

    def close(self, error):
        self.out.write("close %r\n" % (error,))
        self.out.close()


def foreach_row(row):  # NON_UDF: the function form
    with open(os.path.join(os.environ["WEIR_TEST_OUT"], "rows"), "a") as out:
        out.write("%r\n" % (row,))


def foreach_command(f):  # what pyspark/sql/connect/streaming/readwriter.py foreach() pickles
    ser = AutoBatchedSerializer(CPickleSerializer())
    return (DataStreamWriter._construct_foreach_function(f), None, ser, ser)


long_t = LongType()
commands = {
    "scalar_pandas": (scalar_pandas, long_t),
    "scalar_pandas_iter": (scalar_pandas_iter, long_t),
    "arrow_batched": (arrow_batched, StringType()),
    "scalar_arrow": (scalar_arrow, long_t),
    "scalar_arrow_iter": (scalar_arrow_iter, long_t),
    "map_pandas": (map_pandas, StructType([StructField("id", long_t), StructField("sq", long_t)])),
    "map_arrow": (map_arrow, StructType([StructField("next", long_t)])),
    "map_barrier": (map_barrier, StructType([StructField("id", long_t), StructField("all", StringType())])),
    "grouped_map_pandas": (
        grouped_map_pandas,
        StructType([StructField("k", long_t), StructField("total", DoubleType()), StructField("n", long_t)]),
    ),
    "grouped_map_arrow": (
        grouped_map_arrow,
        StructType([StructField("k", long_t), StructField("n", long_t), StructField("top", long_t)]),
    ),
    "grouped_agg_pandas": (grouped_agg_pandas, DoubleType()),
    "grouped_agg_arrow": (grouped_agg_arrow, long_t),
    "cogrouped_map_arrow": (
        cogrouped_map_arrow,
        StructType([StructField("k", long_t), StructField("nl", long_t), StructField("nr", long_t)]),
    ),
    "cogrouped_map_pandas": (
        cogrouped_map_pandas,
        StructType([StructField("k", long_t), StructField("nl", long_t), StructField("nr", long_t)]),
    ),
    "plus_one": (plus_one, long_t),
    "times_ten": (times_ten, long_t),
    "raises": (raises, long_t),
    "sleeps": (sleeps, long_t),
    "identity": (identity, long_t),
    "python_type": (python_type, StringType()),
    "wrong_type": (wrong_type, long_t),
    "raises_row": (raises_row, long_t),
    "sum_args": (sum_args, long_t),
}
# identity_<type>: the identity function declared to return each Spark type (SQL_BATCHED_UDF
# round trips of every type).
for name, rt in {
    "boolean": BooleanType(),
    "byte": ByteType(),
    "short": ShortType(),
    "integer": IntegerType(),
    "long": long_t,
    "float": FloatType(),
    "double": DoubleType(),
    "decimal": DecimalType(10, 2),
    "string": StringType(),
    "binary": BinaryType(),
    "date": DateType(),
    "timestamp": TimestampType(),
    "timestamp_ntz": TimestampNTZType(),
    "interval": DayTimeIntervalType(),
    "array": ArrayType(long_t),
    "map": MapType(StringType(), long_t),
    "struct": StructType([StructField("a", long_t), StructField("b", StringType())]),
}.items():
    commands["identity_" + name] = (identity, rt)
commands["foreach_writer"] = foreach_command(FileWriter())
commands["foreach_function"] = foreach_command(foreach_row)



# UDTF handler classes (SQL_TABLE_UDF / SQL_ARROW_TABLE_UDF): the command of a PythonUDTF is the
# cloudpickled class alone; the return type travels in the task's command section.
class RangeUDTF:  # returns (n bigint, i bigint)
    def __init__(self):
        self.calls = 0

    def eval(self, n, step=1):
        self.calls += 1
        for i in range(0, n, step):
            yield n, i

    def terminate(self):
        yield -1, self.calls


class ConstUDTF:  # no arguments; returns (d date, s string, x double)
    def eval(self):
        import datetime

        yield datetime.date(2024, 2, 29), "héllo", 1.5
        yield None, None, None


class FailingUDTF:  # returns (n bigint)
    def eval(self, n):
        if n == 3:
            raise ValueError("udtf saw three")
        yield (n,)


commands["udtf_range"] = RangeUDTF
commands["udtf_const"] = ConstUDTF
commands["udtf_failing"] = FailingUDTF

ser = CloudPickleSerializer()
json.dump(
    {
        "version": "%d.%d" % sys.version_info[:2],
        "commands": {k: base64.b64encode(ser.dumps(v)).decode() for k, v in commands.items()},
    },
    sys.stdout,
)
