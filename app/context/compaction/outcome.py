"""How a compaction ended: the spec's status codes, our own failures beside them, and their words.

Apart from the summarizer (summary.py) so that the compactor, whose gate runs before every
request, does not load the summarizer's module until a summary is asked for.
"""

from __future__ import annotations

from enum import IntEnum


class CompressionStatus(IntEnum):
    """A compaction's outcome, numbered as the spec numbers them."""

    COMPRESSED = 1
    COMPRESSION_FAILED_INFLATED_TOKEN_COUNT = 2
    COMPRESSION_FAILED_TOKEN_COUNT_ERROR = 3
    COMPRESSION_FAILED_EMPTY_SUMMARY = 4
    NOOP = 5
    COMPRESSION_FAILED_OUTPUT_TRUNCATED = 6
    # Beyond the spec: failures of our own checks, reported with the same status mechanism.
    COMPRESSION_FAILED_TIMEOUT = 7
    COMPRESSION_FAILED_MODEL_ERROR = 8
    COMPRESSION_FAILED_QUALITY = 9

    @property
    def failed(self) -> bool:
        return self not in (CompressionStatus.COMPRESSED, CompressionStatus.NOOP)


STATUS_TEXT = {
    CompressionStatus.COMPRESSED: "compressed",
    CompressionStatus.NOOP: "nothing to compress",
    CompressionStatus.COMPRESSION_FAILED_EMPTY_SUMMARY: "the summary came back empty",
    CompressionStatus.COMPRESSION_FAILED_OUTPUT_TRUNCATED: "the summary was cut off at the output limit",
    CompressionStatus.COMPRESSION_FAILED_INFLATED_TOKEN_COUNT: "the summary would not have made the context smaller",
    CompressionStatus.COMPRESSION_FAILED_TOKEN_COUNT_ERROR: "the new size could not be counted",
    CompressionStatus.COMPRESSION_FAILED_TIMEOUT: "the summarizer did not finish in time",
    CompressionStatus.COMPRESSION_FAILED_MODEL_ERROR: "the summarizer request failed",
    CompressionStatus.COMPRESSION_FAILED_QUALITY: "the summary lost details of the latest requests",
}
