"""The read-only commands, with the options known to only read: the table, as data.

Each row was written from the command's own manual on a GNU/Linux system
(coreutils 9, grep 3, findutils 4.9, git 2.39, ripgrep 15, file 5, tree 2) and is
checked against it by tests/unit/test_shell_readonly_table.py: every option
named here must appear in ``man``/``--help``. An option that is not listed fails
the command — the ones that write (``--output``, ``-o``, ``sort -T``), run
programs (``--pre``, ``--ext-diff``, ``--textconv``, ``-exec``), page or open
(``-O``, ``--paginate``, ``diff -l``), never end (``tail -f``), follow symlinks
out of the project (``-L``, ``-R``, ``--follow``) or read file names from a file
(``--files0-from``, ``-f FILE`` of ``file``) were left out on purpose.
"""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass

from app.core.tools.shell_options import OptionSpec, spec


@dataclass(frozen=True)
class ReadOnlyCommand:
    """One row of the table: the options a command may take while it only reads, and which operands it reads."""

    options: OptionSpec
    max_operands: int | None = None  # None: any number
    paths: str = "all"  # which operands it reads: "all", "none", "after-pattern", "maybe" (git: revision or path)
    path_options: frozenset[str] = frozenset()  # options whose value is a file it reads
    pattern_options: frozenset[str] = frozenset()  # give the pattern, so every operand is a file (grep -e)
    reads_cwd: bool = False  # with no path operand it reads the current directory
    rule: str = ""  # an extra check in shell_readonly.py: "find", "date", "git-branch", ...
    manual: str = ""  # where the options come from, for the tests: "man git-log", "--help"
    aliases: tuple[str, ...] = field(default=())


def _paths(*names: str) -> frozenset[str]:
    return frozenset(names)


_GREP = spec(
    "EFGPiwxzsvVbnHhoqaIrLlcTZU",
    "efmdABC",
    "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case word-regexp line-regexp "
    "null-data no-messages invert-match version help byte-offset line-number line-buffered with-filename "
    "no-filename only-matching quiet silent text recursive files-without-match files-with-matches count "
    "initial-tab null no-group-separator binary",
    "regexp file max-count label binary-files directories include exclude exclude-from exclude-dir "
    "before-context after-context context group-separator",
    "color colour",
    numeric=True,
)

_RG = spec(
    "iSsFwxvlcoHhnNqUP0u.ab",
    "egtTABCmdrEjM",
    "ignore-case smart-case case-sensitive fixed-strings word-regexp line-regexp invert-match files-with-matches "
    "files-without-match count count-matches only-matching with-filename no-filename line-number no-line-number "
    "quiet multiline pcre2 null hidden no-hidden no-ignore no-ignore-vcs no-ignore-dot no-ignore-global "
    "no-ignore-parent no-ignore-exclude no-ignore-files files json no-heading heading vimgrep column no-column "
    "trim stats passthru type-list no-messages byte-offset crlf no-unicode text binary no-binary one-file-system "
    "invert-match no-config glob-case-insensitive unrestricted help version debug",
    "regexp glob iglob type type-not before-context after-context context max-count max-depth replace encoding "
    "threads max-columns max-filesize sort sortr color colors path-separator context-separator field-match-separator "
    "field-context-separator engine type-add ignore-file",
)

# Shared by git log / show / diff: the options of git-log(1), git-diff(1) and their diff options.
_GIT_DIFF_FLAGS = (
    "patch no-patch raw patch-with-raw patch-with-stat stat shortstat numstat name-only name-status summary "
    "compact-summary minimal patience histogram no-renames full-index binary check text ignore-all-space "
    "ignore-space-change ignore-space-at-eol ignore-blank-lines ignore-cr-at-eol ignore-submodules no-color "
    "no-ext-diff no-textconv function-context exit-code no-prefix irreversible-delete pickaxe-all "
    "pickaxe-regex cumulative indent-heuristic no-indent-heuristic no-color-moved-ws"
)
_GIT_DIFF_VALUED = "unified diff-filter src-prefix dst-prefix line-prefix inter-hunk-context skip-to rotate-to"
_GIT_DIFF_OPTIONAL = "color word-diff color-words dirstat find-renames find-copies relative abbrev color-moved submodule"
_GIT_LOG_FLAGS = (
    "oneline graph all branches tags remotes reverse merges no-merges first-parent follow abbrev-commit "
    "no-abbrev-commit full-history date-order author-date-order topo-order left-right cherry-pick cherry-mark "
    "boundary source no-decorate all-match invert-grep regexp-ignore-case extended-regexp fixed-strings "
    "perl-regexp no-walk do-walk children parents simplify-by-decoration dense sparse left-only right-only cherry "
    "relative-date log-size use-mailmap no-notes show-notes"
)
_GIT_LOG_VALUED = "max-count skip since after until before author committer grep format date min-parents max-parents"
_GIT_LOG_OPTIONAL = "pretty decorate notes"
_GIT_LOG = spec(
    "pusiEFPwbW",
    "nUSG",
    " ".join((_GIT_DIFF_FLAGS, _GIT_LOG_FLAGS)),
    " ".join((_GIT_DIFF_VALUED, _GIT_LOG_VALUED)),
    " ".join((_GIT_DIFF_OPTIONAL, _GIT_LOG_OPTIONAL)),
    numeric=True,
)
# git show takes the diff options and the commit-formatting ones (git-show(1)), not rev-list's.
_GIT_SHOW = spec(
    "pusmwbW",
    "USG",
    _GIT_DIFF_FLAGS + " oneline abbrev-commit no-abbrev-commit show-notes no-notes expand-tabs first-parent cc "
    "combined-all-paths",
    _GIT_DIFF_VALUED + " format date encoding",
    _GIT_DIFF_OPTIONAL + " pretty decorate notes",
)
_GIT_DIFF = spec(
    "pusRawbW",
    "USG",
    _GIT_DIFF_FLAGS + " cached staged merge-base quiet",
    _GIT_DIFF_VALUED,
    _GIT_DIFF_OPTIONAL,
)

# --help is left out: it runs man.viewer / help.browser, which the repository's config can name.
GIT_GLOBAL = spec("P", "", "no-pager no-optional-locks literal-pathspecs no-replace-objects version", permute=False)

GIT: dict[str, ReadOnlyCommand] = {
    "status": ReadOnlyCommand(
        spec("sbvz", "", "short branch long verbose no-ahead-behind ahead-behind show-stash no-renames renames",
             "", "porcelain untracked-files ignored ignore-submodules column no-column find-renames"),  # fmt: skip
        paths="maybe",
        manual="man git-status",
    ),
    "log": ReadOnlyCommand(_GIT_LOG, paths="maybe", manual="man git-log"),
    "show": ReadOnlyCommand(_GIT_SHOW, paths="maybe", manual="man git-show"),
    "diff": ReadOnlyCommand(_GIT_DIFF, paths="maybe", manual="man git-diff"),
    "blame": ReadOnlyCommand(
        spec("bctlsnefwp", "LMC", "root show-stats porcelain line-porcelain incremental show-name show-number "
             "show-email", "date ignore-rev", "abbrev"),  # fmt: skip
        paths="maybe",
        manual="man git-blame",
    ),
    "ls-files": ReadOnlyCommand(
        spec("cdmoiskuzftv", "x", "cached deleted modified others ignored stage unmerged killed directory "
             "no-empty-directory exclude-standard error-unmatch full-name recurse-submodules eol deduplicate",
             "exclude format", "abbrev"),  # fmt: skip
        paths="maybe",
        manual="man git-ls-files",
    ),
    "ls-tree": ReadOnlyCommand(
        spec("drtlz", "", "long name-only name-status object-only full-name full-tree", "format", "abbrev"),
        paths="maybe",
        manual="man git-ls-tree",
    ),
    "rev-parse": ReadOnlyCommand(
        spec("q", "", "verify quiet show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir "
             "is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository symbolic "
             "symbolic-full-name all branches tags remotes show-superproject-working-tree",
             "", "abbrev-ref short"),  # fmt: skip
        paths="none",
        manual="man git-rev-parse",
    ),
    "grep": ReadOnlyCommand(
        spec("nivwlLcEFPhHIoqpWrz", "eABCm", "line-number ignore-case invert-match word-regexp files-with-matches "
             "name-only files-without-match count extended-regexp fixed-strings perl-regexp cached untracked "
             "only-matching quiet show-function function-context break heading full-name recursive and or not "
             "all-match null column no-color text",
             "max-depth max-count threads before-context after-context context", "color"),  # fmt: skip
        paths="maybe",
        manual="man git-grep",
    ),
    "shortlog": ReadOnlyCommand(
        spec("nsec", "", "numbered summary email committer all no-merges merges", "format since until author group"),
        paths="maybe",
        manual="man git-shortlog",
    ),
    "describe": ReadOnlyCommand(
        spec("", "", "tags all long always exact-match contains first-parent", "match exclude candidates",
             "abbrev dirty broken"),  # fmt: skip
        paths="none",
        manual="man git-describe",
    ),
    "cat-file": ReadOnlyCommand(spec("tspe", "", "batch-check", ""), paths="none", manual="man git-cat-file"),
    "branch": ReadOnlyCommand(
        spec("arlvi", "", "all remotes list verbose show-current ignore-case no-color no-column",
             "sort format points-at", "merged no-merged contains no-contains color column abbrev"),  # fmt: skip
        paths="none",
        rule="git-list",
        manual="man git-branch",
    ),
    "tag": ReadOnlyCommand(
        spec("li", "", "list ignore-case no-column", "sort format points-at",
             "merged no-merged contains no-contains color column"),  # fmt: skip
        paths="none",
        rule="git-list",
        manual="man git-tag",
    ),
    "remote": ReadOnlyCommand(spec("v", "", "verbose"), paths="none", rule="git-remote", manual="man git-remote"),
    "config": ReadOnlyCommand(
        spec("lz", "f", "get get-all get-regexp get-urlmatch list show-origin show-scope local global system worktree "
             "name-only null bool int bool-or-int path",
             "file type default"),  # fmt: skip
        paths="none",
        path_options=_paths("-f", "--file"),
        rule="git-config",
        manual="man git-config",
    ),
}

COMMANDS: dict[str, ReadOnlyCommand] = {
    "cat": ReadOnlyCommand(
        spec("AbeEnstTuv", "", "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting "
             "help version"),  # fmt: skip
        manual="--help",
    ),
    "head": ReadOnlyCommand(spec("qvz", "cn", "quiet silent verbose zero-terminated help version", "bytes lines",
                                 numeric=True), manual="--help"),  # fmt: skip
    # -f, -F, --follow, --retry, --pid, -s: they wait for more, never ending.
    "tail": ReadOnlyCommand(spec("qvz", "cn", "quiet silent verbose zero-terminated help version", "bytes lines",
                                 numeric=True), manual="--help"),  # fmt: skip
    # --files0-from reads the names of the files to count from a file: names this check never sees.
    "wc": ReadOnlyCommand(spec("cmlLw", "", "bytes chars lines max-line-length words help version"), manual="--help"),
    # -L / --dereference would follow symlinks out of the project under -R.
    "ls": ReadOnlyCommand(
        spec("aAbBcCdDfFgGhHiklmnNopqQrRsStuUvxXZ1", "ITw",
             "all almost-all author escape ignore-backups directory dired file-type full-time "
             "group-directories-first no-group human-readable si dereference-command-line "
             "dereference-command-line-symlink-to-dir inode kibibytes numeric-uid-gid literal hide-control-chars "
             "show-control-chars quote-name reverse recursive size context zero help version",
             "block-size format hide ignore indicator-style quoting-style sort time time-style tabsize width",
             "color classify hyperlink"),  # fmt: skip
        reads_cwd=True,
        manual="--help",
    ),
    # -R / --dereference-recursive follows every symlink, out of the project too; -f FILE is a path read.
    "grep": ReadOnlyCommand(
        _GREP,
        paths="after-pattern",
        path_options=_paths("-f", "--file", "--exclude-from"),
        pattern_options=_paths("-e", "--regexp", "-f", "--file"),
        rule="grep",
        manual="--help",
        aliases=("egrep", "fgrep"),
    ),
    # --pre / --pre-glob / --hostname-bin run programs, -z / --search-zip runs decompressors, -L / --follow
    # leaves the project through symlinks.
    "rg": ReadOnlyCommand(
        _RG,
        paths="after-pattern",
        path_options=_paths("--ignore-file"),
        pattern_options=_paths("-e", "--regexp", "--files", "--type-list"),
        reads_cwd=True,
        manual="--help",
    ),
    "find": ReadOnlyCommand(spec(), rule="find", reads_cwd=True, manual="man find"),
    # -l / --paginate runs pr; -r / --recursive follows symlinks out of the project; --from-file /
    # --to-file name files it reads.
    "diff": ReadOnlyCommand(
        spec("qscuenyptTNiEZbwBadx", "CUWFIDXS",
             "normal brief report-identical-files ed rcs side-by-side left-column suppress-common-lines "
             "show-c-function expand-tabs initial-tab suppress-blank-empty no-dereference new-file "
             "unidirectional-new-file ignore-file-name-case no-ignore-file-name-case ignore-case "
             "ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines "
             "text strip-trailing-cr minimal speed-large-files help version",
             "width show-function-line label tabsize exclude exclude-from starting-file from-file to-file "
             "ignore-matching-lines ifdef horizon-lines line-format palette",
             "context unified color"),  # fmt: skip
        max_operands=2,
        path_options=_paths("--from-file", "--to-file", "-X", "--exclude-from"),
        manual="--help",
    ),
    "cmp": ReadOnlyCommand(spec("bls", "in", "print-bytes verbose quiet silent help", "ignore-initial bytes"),
                           max_operands=4, rule="cmp", manual="--help"),  # fmt: skip
    "cut": ReadOnlyCommand(spec("nsz", "bcdf", "complement only-delimited zero-terminated help version",
                                "bytes characters delimiter fields output-delimiter"), manual="--help"),  # fmt: skip
    # -o / --output writes, -T / --temporary-directory writes temporaries, --compress-program runs one,
    # --files0-from reads file names from a file.
    "sort": ReadOnlyCommand(
        spec("bdfgiMhnRrVcCmsuz", "ktS", "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
             "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse version-sort debug "
             "merge stable unique zero-terminated help version",
             "random-source sort batch-size key buffer-size field-separator parallel", "check"),  # fmt: skip
        path_options=_paths("--random-source"),
        manual="--help",
    ),
    # A second operand is the output file uniq writes.
    "uniq": ReadOnlyCommand(spec("cdDiuz", "fsw", "count repeated ignore-case unique zero-terminated help version",
                                 "skip-fields skip-chars check-chars", "all-repeated group"),  # fmt: skip
                            max_operands=1, manual="--help"),
    "tr": ReadOnlyCommand(spec("cCdst", "", "complement delete squeeze-repeats truncate-set1 help version"),
                          max_operands=2, paths="none", manual="--help"),  # fmt: skip
    "nl": ReadOnlyCommand(spec("p", "bdfhilnsvw", "no-renumber help version",
                               "body-numbering section-delimiter footer-numbering header-numbering line-increment "
                               "join-blank-lines number-format number-separator starting-line-number number-width"),
                          manual="--help"),  # fmt: skip
    "stat": ReadOnlyCommand(spec("Lft", "c", "dereference file-system terse help version", "cached format printf"),
                            manual="--help"),  # fmt: skip
    # -L / --dereference follows symlinks out; --files0-from / -X read names or patterns from a file.
    "du": ReadOnlyCommand(
        spec("0abcDHhklmPSsx", "Bdt", "null all apparent-size bytes total dereference-args human-readable inodes "
             "count-links no-dereference separate-dirs si summarize one-file-system help version",
             "block-size max-depth threshold time-style exclude", "time"),  # fmt: skip
        reads_cwd=True,
        manual="--help",
    ),
    # --output is a field list, but the name is refused everywhere; --sync writes the disk caches.
    "df": ReadOnlyCommand(spec("ahHiklPTv", "Btx", "all human-readable si inodes local no-sync portability total "
                               "print-type help version", "block-size type exclude-type"), manual="--help"),  # fmt: skip
    "basename": ReadOnlyCommand(spec("az", "s", "multiple zero help version", "suffix"), paths="none", manual="--help"),
    "dirname": ReadOnlyCommand(spec("z", "", "zero help version"), paths="none", manual="--help"),
    "realpath": ReadOnlyCommand(spec("emLPqsz", "", "canonicalize-existing canonicalize-missing logical physical "
                                     "quiet strip no-symlinks zero help version", "relative-to relative-base"),
                                path_options=_paths("--relative-to", "--relative-base"), manual="--help"),  # fmt: skip
    "readlink": ReadOnlyCommand(spec("femnqsvz", "", "canonicalize canonicalize-existing canonicalize-missing "
                                     "no-newline quiet silent verbose zero help version"), manual="--help"),  # fmt: skip
    # -s / --set sets the clock; any operand but +FORMAT sets it too (checked by the "date" rule).
    "date": ReadOnlyCommand(
        spec("Ru", "dfrI", "debug resolution rfc-email utc universal help version", "date file reference rfc-3339",
             "iso-8601"),  # fmt: skip
        max_operands=1,
        paths="none",
        path_options=_paths("-f", "--file", "-r", "--reference"),
        rule="date",
        manual="--help",
    ),
    "uname": ReadOnlyCommand(spec("asnrvmpio", "", "all kernel-name nodename kernel-release kernel-version machine "
                                  "processor hardware-platform operating-system help version"),
                             max_operands=0, manual="--help"),  # fmt: skip
    "pwd": ReadOnlyCommand(spec("LP"), max_operands=0, manual="help pwd"),
    "id": ReadOnlyCommand(spec("aZgGnruz", "", "context group groups name real user zero help version"),
                          max_operands=1, paths="none", manual="--help"),  # fmt: skip
    "whoami": ReadOnlyCommand(spec("", "", "help version"), max_operands=0, manual="--help"),
    # -b / -F / a name operand set the host name.
    "hostname": ReadOnlyCommand(spec("aAdfiIsy", "", "alias all-fqdns domain fqdn long ip-address all-ip-addresses "
                                     "short yp nis"), max_operands=0, manual="--help"),  # fmt: skip
    # -C / --compile writes a magic file, -z / -Z run decompressors, -f reads file names from a file,
    # -m names magic files it loads, -p changes access times back.
    "file": ReadOnlyCommand(spec("bcikLhnN0rsl", "eFP", "brief checking-printout mime keep-going dereference "
                                 "no-dereference no-buffer no-pad print0 raw special-files list apple extension "
                                 "mime-type mime-encoding help version",
                                 "exclude exclude-quiet separator parameter"), manual="--help"),  # fmt: skip
    # -o / --output writes; -R with -H writes an index file per directory; -l follows symlinks out.
    "tree": ReadOnlyCommand(
        spec("adfixpsughDFqNQrtvUcCAnSJ", "LPI", "noreport dirsfirst filesfirst du si prune help version inodes "
             "device", "filelimit timefmt sort charset gitfile", "gitignore"),  # fmt: skip
        path_options=_paths("--gitfile"),
        reads_cwd=True,
        manual="--help",
    ),
    # -c / --check reads the names of the files to check from a file.
    "md5sum": ReadOnlyCommand(spec("btz", "", "binary tag text zero help version"), manual="--help",
                              aliases=("sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum")),
    "echo": ReadOnlyCommand(spec(), paths="none", rule="any-words", manual="help echo"),
    "printf": ReadOnlyCommand(spec(), paths="none", rule="printf", manual="help printf"),
    "true": ReadOnlyCommand(spec(), paths="none", rule="any-words", manual="help true"),
    "false": ReadOnlyCommand(spec(), paths="none", rule="any-words", manual="help false"),
    "which": ReadOnlyCommand(spec("a"), paths="none", manual="which"),
    "git": ReadOnlyCommand(GIT_GLOBAL, rule="git", manual="man git"),
}


def command_row(name: str) -> ReadOnlyCommand | None:
    row = COMMANDS.get(name)
    if row is not None:
        return row
    return next((r for r in COMMANDS.values() if name in r.aliases), None)
