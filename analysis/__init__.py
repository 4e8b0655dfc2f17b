"""Polars analyses over datasets and the report builder (never imports ``kernels``)."""
