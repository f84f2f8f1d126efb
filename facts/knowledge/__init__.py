"""Every knowledge file read in one place and validated by its own schema (issue 12).

``load("ib_counters.yaml")`` reads ``knowledge/ib_counters.yaml`` from the installed package
(:mod:`importlib.resources` of ``stethoscope.knowledge``) with the safe YAML loader, validates it
with the pydantic model that :data:`SCHEMAS` names for it and returns the model, cached. Names
are relative to ``knowledge/``: ``cases/xid-79-fell-off-bus.yaml``,
``decision_trees/throughput_dropped.yaml``.

The schemas are strict: a key a model does not know is an error (``extra="forbid"``), so a
typo'd key fails at load time instead of silently meaning nothing. Fields that name a cause,
a component, an action, a severity or a fact kind are checked against the vocabulary
(``taxonomy.yaml``, ``actions.yaml``, ``fact_polarity.yaml``). Every failure is a
:class:`KnowledgeError` naming the file and the key path, e.g.
``knowledge/ib_counters.yaml: counters.0.cause: unknown cause 'ib_link_eror' (see knowledge/taxonomy.yaml)``.

This package is the lowest layer (``facts``): it never imports the engine. A new knowledge file
needs an entry in :data:`SCHEMAS` (tests/test_knowledge_schemas.py fails until it has one) and
its schema in the module of its area; this package re-exports every public name of them, so
callers write ``knowledge.load(...)``, ``knowledge.Compat`` or
``from stethoscope.facts.knowledge import PatrolSuite``:

- ``base``: the strict base record, severities, references to the vocabulary, KnowledgeError
- ``vocabulary``: taxonomy, actions, fact polarity, fact routing, coverage, collect
- ``cuda``: CUDA errors and their judgements, version compatibility (compat.yaml)
- ``dcgm``: DCGM, NVSentinel
- ``perf``: expected performance, NVLink, PCIe host copies, benchmark tolerances and limits
- ``fabric``: IB counters and port comparisons, link quality, RDMA counters, NIC line rate,
  verbs async events and work completion statuses
- ``localisation``: the limits and blame of engine/localise/
- ``nccl``: architecture support, environment, known issues, NVLS, results, WARN messages
- ``xid``: the Xid catalogue and its inputs, Xid 74's workflow, NVRM messages, NV_STATUS codes
- ``logs``: kernel messages, PyTorch warnings, shared process names, GPU driver modules
- ``bmc``: Redfish message ids, IPMI SEL events
- ``products``: GPU products, PCI device ids
- ``cases``: decision trees, the knowledge base of past incidents
- ``patrol``: the patrol suite, Prometheus storage figures
- ``loader``: SCHEMAS and the loader
"""
from stethoscope.facts.knowledge.base import (  # noqa: F401
    ActionId, CauseId, ComponentId, FactKind, KnowledgeError, PACKAGE, Record, SEVERITIES, Severity,
    check_kinds,
)
from stethoscope.facts.knowledge.vocabulary import (  # noqa: F401
    Actions, Command, CommandSet, Coverage, CoverageKind, CoverageWhen, FactPolarity, FactRouting,
    PolarityEntry, QuietLevels, SummaryRows, Taxonomy,
)
from stethoscope.facts.knowledge.cuda import (  # noqa: F401
    Compat, CudaDriver, CudaError, CudaErrorJudgements, CudaErrors, CudaJudgement, CudaJudgementGroup,
    CudaNccl, CudaText, DcgmDriver,
)
from stethoscope.facts.knowledge.dcgm import (  # noqa: F401
    Dcgm, DcgmErrorCode, DcgmHealthMessage, DcgmHealthSystem, DcgmLevel, DcgmNotComparable, DcgmSelfMessage,
    DcgmTest, Nvsentinel, NvsentinelAction, NvsentinelCheck,
)
from stethoscope.facts.knowledge.perf import (  # noqa: F401
    BenchTolerance, BenchTolerances, BenchValidity, ExpectedPerf, GpuPowerLimits, InputPipelineLimits,
    NcclTestsBands, NcclTestsLimits, NcclTestsSiblings, NvlinkExpected, NvlinkPairProduct, NvlinkPairs,
    NvlinkProduct, PcieHostCopy, PcieHostCopyProduct, PeerBenchmark, PeerLimits, PerfCurve, PerfPlatform,
    StragglerLimits, TorchWatchdogLimits,
)
from stethoscope.facts.knowledge.fabric import (  # noqa: F401
    IbAsyncEventEntry, IbAsyncEvents, IbCounter, IbCounters, IbPortComparison, IbPortLimit, IbWcStatusEntry,
    IbWcStatuses, LinkQuality, LinkQualityCounter, NicLineRate, RdmaHwCounter, RdmaHwCounters,
)
from stethoscope.facts.knowledge.localisation import (  # noqa: F401
    Blame, CommonCauseConfidence, CommonCauseLimits, Fraction, Localisation, PairwiseConfidence,
    PairwiseLimits, RdmaPeerConfidence, RdmaPeerLimits,
)
from stethoscope.facts.knowledge.nccl import (  # noqa: F401
    GpuPattern, NcclArchSupport, NcclArchSupportTable, NcclEnv, NcclEnvSetting, NcclKnownIssue,
    NcclKnownIssues, NcclResultEntry, NcclResults, NcclSymptom, NcclWarnMessage, NcclWarnMessages, Nvls,
    NvlsDisable, NvlsGpus, NvlsMinGpus, NvlsNccl, VersionRange,
)
from stethoscope.facts.knowledge.xid import (  # noqa: F401
    CauseAndComponent, NvStatusCode, NvStatusCodes, Nvlink5Row, NvrmMessage, NvrmMessages, RecoveryAction,
    RmInitStage, SeverityActions, SxidEntry, SxidJudgement, UnlistedNvlink5, UnlistedSxid,
    UnlistedSxidJudgement, UnlistedXid, UnlistedXidJudgement, Xid74Class, Xid74Escalation, Xid74Group,
    Xid74Workflow, XidCatalogue, XidCauseCodes, XidEntry, XidJudgements, XidOverride, XidRecoveryActions,
    XidUnlisted, XidUnlistedJudgements,
)
from stethoscope.facts.knowledge.logs import (  # noqa: F401
    GpuDriverModule, GpuDriverModules, KernelBenign, KernelMessages, KernelSubsystem, ProcessNames,
    SharedProcessName, TorchWarning, TorchWarnings,
)
from stethoscope.facts.knowledge.bmc import (  # noqa: F401
    IpmiSelEventEntry, IpmiSelEvents, RedfishMessageEntry, RedfishMessageIds,
)
from stethoscope.facts.knowledge.products import (  # noqa: F401
    GpuPciId, GpuPciIds, GpuProducts,
)
from stethoscope.facts.knowledge.cases import (  # noqa: F401
    Branch, Case, Signature, SignatureMatch, Tree,
)
from stethoscope.facts.knowledge.patrol import (  # noqa: F401
    ExporterInterval, LowHigh, PatrolMetric, PatrolStep, PatrolSuite, PrometheusStorage, StorageQueries,
)
from stethoscope.facts.knowledge.loader import (  # noqa: F401
    SCHEMAS, entry_lines, files, load, load_all, load_path, parse, schema_for, text, validate, vocabulary,
)
