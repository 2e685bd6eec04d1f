// Package variant is Spark's VARIANT binary encoding (Spark's common/variant and the Parquet
// variant spec): a value buffer and a metadata buffer holding the dictionary of object keys.
//
// A value starts with a header byte whose low 2 bits are the basic type (primitive, short
// string, object, array) and whose high 6 bits are type information; integers are little
// endian. The metadata is a version-1 header (bits 6-7: offset size - 1), the dictionary size,
// its offsets and the UTF-8 key bytes. Objects hold their fields sorted by key (field ids point
// into the dictionary); arrays hold offsets to their elements.
//
// Builder writes values as Spark's VariantBuilder does (smallest integer width, decimals of at
// most 38 digits, keys numbered in order of first appearance, fields sorted, duplicate keys
// refused with VARIANT_DUPLICATE_KEY); ParseJSON builds one from JSON text with Spark's number
// rules (integers as the smallest integer type, then decimal, then double). Value reads one
// back; Validate checks a (value, metadata) pair from outside (clients, files) before any read,
// so the readers can index without checks of their own. Paths ($.a[0]['b']) parse with
// ParsePath. Every buffer stays within SizeLimit (16 MiB), else VARIANT_SIZE_LIMIT.
package variant
