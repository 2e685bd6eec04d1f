"""Write every FileDescriptor reachable from a package's *_pb2 modules as a FileDescriptorSet.

Usage: python dump_fds.py pyspark.sql.connect.proto OUT.binpb
"""
import importlib
import pkgutil
import sys

from google.protobuf import descriptor_pb2


def main() -> None:
    pkg = importlib.import_module(sys.argv[1])
    out, done = descriptor_pb2.FileDescriptorSet(), set()

    def add(fd):
        if fd.name in done:
            return
        for dep in fd.dependencies:  # dependencies first
            add(dep)
        done.add(fd.name)
        proto = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(proto)
        out.file.append(proto)

    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if mod.name.endswith("_pb2"):
            add(importlib.import_module(f"{pkg.__name__}.{mod.name}").DESCRIPTOR)
    with open(sys.argv[2], "wb") as f:
        f.write(out.SerializeToString())
    for f in out.file:
        print(f.name)


if __name__ == "__main__":
    main()
