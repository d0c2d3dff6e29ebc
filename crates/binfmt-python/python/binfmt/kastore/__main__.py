"""``python -m binfmt.kastore ls|dump FILE``: the reference's ``python -m kastore``."""

from .cli import kastore_main

if __name__ == "__main__":
    kastore_main()
