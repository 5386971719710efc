"""Host nesting depths of an XLA profile's host rows, computed from the rows' file order,
and their ids.

A range's depth is how many ranges of the same kind are open on its thread when it
starts; sorting every start and end point of every host range (2N points) in SQL finds
it. An XLA profile has about twice the host events per MB of a Kineto trace (its Python
tracer records every call), and that sort was most of its load. XLA writes each thread's
events by start time, longer first at equal starts, so the depths come from the rows in
file order, all at once, by host_depth.group_depths (which puts rows out of that order
in it first): no copy of the rows and no sort of their starts.
"""

from __future__ import annotations

import duckdb
import numpy as np

from tui.core.db import registered
from tui.derived.host_depth import group_depths


def number_host_rows(con: duckdb.DuckDBPyConnection) -> None:
    """Number the host rows xla_host_activities.sql wrote into host_activities (in file
    order) and set their depths, in place."""
    # a group's number: a hash of (kind, pid, tid), unless two groups' hashes collide
    distinct = con.execute("SELECT count(DISTINCT hash(kind, pid, tid)) = count(*) FROM "
                           "(SELECT DISTINCT kind, pid, tid FROM host_activities)").fetchone()
    query = ("SELECT rowid AS row, hash(kind, pid, tid) AS g, start_ns, end_ns "
             "FROM host_activities"
             if distinct and distinct[0] else  # in row order either way
             "SELECT rowid AS row, dense_rank() OVER (ORDER BY kind, pid, tid) AS g, start_ns, "
             "end_ns FROM host_activities ORDER BY rowid")
    cols = con.execute(query).fetchnumpy()
    depth = group_depths(np.asarray(cols["row"]), np.asarray(cols["g"]),
                         np.asarray(cols["start_ns"]), np.asarray(cols["end_ns"]))
    # Set in place by row number, so the rows keep their order: the table was written by
    # one INSERT into an empty table, so its rowids count 0, 1, ... in file order, and a
    # row's id is that number. (Numbering and joining the depths on while copying the
    # rows, with a window and a POSITIONAL JOIN, ran on one thread: 1.5 s more at 500 MB.)
    with registered(con, "xla_host_depth_array", {"row": cols["row"], "depth": depth}):
        con.execute("UPDATE host_activities SET id = d.row, depth = d.depth "
                    "FROM xla_host_depth_array AS d WHERE host_activities.rowid = d.row")
    del cols

