"""The build cache, in three parts: its entries (entries.py: written atomically, checked each
time they are used), what the build derives and keeps across builds (memo.py: records, the
memo, programs' versions, compiled templates) and the usage ledger that keeps it bounded
(ledger.py). The build uses it as one module: ``cache.writing``, ``cache.Memo``,
``cache.finish_build``.
"""

from scalecore_generator.foundation.cache.entries import (  # noqa: F401
    RECORD, TEMPORARY, content_name, content_named, damage, intact_files,
    remove_abandoned, sha256_file, usable, writing)
from scalecore_generator.foundation.cache.digests import Digests  # noqa: F401
from scalecore_generator.foundation.cache.ledger import (  # noqa: F401
    LEDGER, LOCK, CacheBusy, SharedUse, every_entry, exclusive, finish_build, folder_size, remove_entries, stale)
from scalecore_generator.foundation.cache.memo import (  # noqa: F401
    Memo, TemplateCache, TemplateCaches, program_version, read_record,
    write_record)
