// Package fileaccess is Weir's one file-access policy: every path a client names (batch and
// streaming file reads and their globs, file sink paths and their _spark_metadata commit logs,
// batch overwrites, checkpoint locations, the spill directory conf, artifacts) goes through a
// Policy before anything is read, created or deleted, and the caller then uses the path the
// Policy returns, not the client's.
//
// Resolution (Resolve): a "file:" URI becomes its local path; a relative path is taken against
// the server's working directory; the path is cleaned lexically (".." as Hadoop's Path
// normalizes it) and then every symbolic link on it is followed (one in the middle, and the
// last element too), as far as the path exists; the part that does not exist yet is kept as
// written. The empty path is refused as Spark does ("Can not create a Path from an empty
// string"). Checks apply to the resolved path, so a link inside a data root that points out of
// it, or "/data/../etc", is judged by where it leads.
//
// Rules (CheckRead, CheckWrite, CheckReplace):
//   - With data roots (--data-root), a path outside every root is refused for read, write and
//     replace: PATH_NOT_ALLOWED.OUTSIDE_DATA_ROOTS (SQLSTATE 42501, an AnalysisException)
//     naming the path and the roots, and saying that --data-root allows more. Without data
//     roots there is no such restriction.
//   - Always: replace (overwrite or delete of the path and everything under it) of the
//     filesystem root, of a top-level directory (/etc, /usr, /home, /tmp, …), of a data root,
//     of the state directory, of anything inside it or any ancestor of it, of the working
//     directory or an ancestor, of $HOME or an ancestor is refused: PATH_NOT_ALLOWED.PROTECTED_PATH
//     with the reason.
//   - The warehouse directory (Config.Warehouse, managed tables' files, usually
//     <state>/warehouse) is the exception: anything strictly under it may be read, written and
//     replaced, data roots or not; the warehouse itself is never replaced.
//   - Always: clients may not write into the state directory (it holds the server's own
//     artifacts and files) nor read from it, nor write at the filesystem root itself.
//   - Always: /proc, /sys and /dev are not data. Writes and replaces there are refused; reads
//     under /proc and /sys are refused too (/proc/self/environ would hand out the server's
//     secrets, /proc/self/mem its memory). Reads under /dev are refused with data roots (they
//     lie outside them) and allowed without: a device such as /dev/zero is endless, which the
//     readers' limits bound, not this policy.
//   - A glob pattern read (CheckRead of "/in/*.json") checks the directory before the first
//     pattern character; the caller then checks every match with CheckRead.
//
// A nil *Policy is usable: it applies the always-on rules with the process's working directory
// and home directory and no state directory (tests that build sources and sinks without a
// server). The policy is a check, not a sandbox: a link changed between the check and the use
// is not caught (run the server as an unprivileged user for that; README "Running safely").
//
// ResolveWithin resolves an artifact's relative name under a directory the server owns and
// refuses a name that would leave it (absolute, "..", or through a link).
package fileaccess
