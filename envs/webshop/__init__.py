"""WebShop (the ReCode paper's third environment) behind the environment seam, offline.

A text-mode shopping site (search, results 10 a page, item pages with options,
description/features/reviews, Buy Now) over a bundled, generated catalogue or
the original's data ($WEBSHOP_DATA); BM25 search (`bm25s`); the paper's
reward. Pure Python: a step costs well under a millisecond.
"""
