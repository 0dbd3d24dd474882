"""Needs a package that is not installed (never used by the flagged block)."""

import not_installed_for_the_retry_test as missing

import library_retry

FACTOR = library_retry.norms.SCALE


def fit(data):
    return missing.fit(data)
