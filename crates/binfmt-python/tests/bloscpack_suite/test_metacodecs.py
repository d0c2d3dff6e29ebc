# Vendored from bloscpack 0.16.0 (the PyPI sdist bloscpack-0.16.0.tar.gz, test/test_metacodecs.py)
# (MIT licence, Copyright (c) 2012-2018 Valentin Haenel; see LICENSE-bloscpack in this folder).
# Run by conftest.py twice: against the reference package and against binfmt.bloscpack,
# each imported as `bloscpack`; nose.tools, nose generator tests and mock are shimmed there.
# Unchanged below this note.
#!/usr/bin/env nosetests
# -*- coding: utf-8 -*-
# vim :set ft=py:


import nose.tools as nt


from bloscpack.args import (DEFAULT_META_LEVEL,
                            )
from bloscpack.metacodecs import (CODECS,
                                  CODECS_AVAIL
                                  )


def test_codecs():
    nt.assert_equal(CODECS_AVAIL, ['None', 'zlib'])
    random_str = b"4KzGCl7SxTsYLaerommsMWyZg1TXbV6wsR9Xk"
    for i, c in enumerate(CODECS):
        nt.assert_equal(random_str, c.decompress(
            c.compress(random_str, DEFAULT_META_LEVEL)))
