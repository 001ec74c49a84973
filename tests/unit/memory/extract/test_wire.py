"""wire: length-prefixed frames between the host and its parsing workers."""

from __future__ import annotations

import io
import os
import threading

import pytest

from codemem.memory.extract.wire import (
    HEADER,
    MAX_FRAME,
    ChannelClosed,
    ChannelTimeout,
    FrameReader,
    read_frame_blocking,
    write_frame,
)


def test_frames_round_trip_through_a_stream():
    stream = io.BytesIO()
    write_frame(stream, b"first")
    write_frame(stream, b"")
    write_frame(stream, b"\x00" * 70_000)
    assert stream.getvalue()[: HEADER.size] == (5).to_bytes(8, "big")
    stream.seek(0)
    assert read_frame_blocking(stream) == b"first"
    assert read_frame_blocking(stream) == b""
    assert read_frame_blocking(stream) == b"\x00" * 70_000
    assert read_frame_blocking(stream) is None  # end of input


def test_a_truncated_frame_reads_as_end_of_input():
    stream = io.BytesIO(HEADER.pack(10) + b"short")
    assert read_frame_blocking(stream) is None
    assert read_frame_blocking(io.BytesIO(b"\x00\x00")) is None  # a partial header


def test_an_oversized_frame_is_refused_by_the_worker_side():
    with pytest.raises(ValueError, match="frame of"):
        read_frame_blocking(io.BytesIO(HEADER.pack(MAX_FRAME + 1)))


def test_frame_reader_reads_frames_split_across_writes():
    read_fd, write_fd = os.pipe()
    try:
        reader = FrameReader(read_fd)
        payload = b"x" * 100_000
        frame = HEADER.pack(len(payload)) + payload + HEADER.pack(2) + b"ok"

        def dribble() -> None:  # a worker writing in pieces
            for i in range(0, len(frame), 4096):
                os.write(write_fd, frame[i : i + 4096])

        writer = threading.Thread(target=dribble)
        writer.start()
        assert reader.read(10.0) == payload
        assert reader.read(10.0) == b"ok"
        writer.join()
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_frame_reader_times_out_then_reports_a_closed_pipe():
    read_fd, write_fd = os.pipe()
    try:
        reader = FrameReader(read_fd)
        os.write(write_fd, HEADER.pack(4) + b"ab")  # half a frame, then silence
        with pytest.raises(ChannelTimeout):
            reader.read(0.05)
        os.close(write_fd)
        write_fd = -1
        with pytest.raises(ChannelClosed):
            reader.read(1.0)
    finally:
        os.close(read_fd)
        if write_fd != -1:
            os.close(write_fd)


def test_frame_reader_refuses_an_oversized_frame():
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, HEADER.pack(MAX_FRAME + 1))
        with pytest.raises(ChannelClosed, match="oversized"):
            FrameReader(read_fd).read(1.0)
    finally:
        os.close(read_fd)
        os.close(write_fd)
