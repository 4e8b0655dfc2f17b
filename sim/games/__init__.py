"""One package per game (``sim/games/<game>/``: ``adapter``, its data loaders, ``referee``),
beside its kernels in ``kernels/<game>/``; the registry is ``sim.registry``."""
