# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Windows hosts, driven from the controller: the PowerShell the action plugins send, and the parsers.

Windows runs no Python module. The action plugins of bench_test, bench_server, bench_preflight and system_profile run each tool (and the NIC,
listener and CIM reads) through ``ansible.windows.win_powershell`` and parse what comes back
here, on the controller, with the same tool parsers and the same runner as Linux and FreeBSD
(docs/architecture.md says why). The scripts take their inputs as ``parameters`` (PowerShell
``param()``), never as text pasted into the script; a process is started from its argv joined
by the Microsoft C runtime's quoting rules (``subprocess.list2cmdline``), not by a shell.

The read-only scripts declare ``SupportsShouldProcess`` so that win_powershell runs them in check mode
too; the action plugins never send the scripts that start or stop servers in check mode.
The parsers are tested on real Windows output (tests/unit/fixtures/windows/, sources in its README).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re
import subprocess

from ansible_collections.perflab.network.plugins.module_utils.host import nic
from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult

# Where the servers' pidfiles go (the tools role's tools_windows_prefix is C:\perflab)
PID_DIR = 'C:\\perflab\\run'
# A Windows adapter name (Get-NetAdapter's Name, e.g. "Ethernet 2"): no quotes, no control characters
_ADAPTER_RE = re.compile(r'^[A-Za-z0-9 _.()#+-]{1,128}$')
ADAPTER_RULE = 'a network adapter name (1-128 of letters, digits, spaces and "_.()#+-")'
# Directories where the tools role puts the tools (Chocolatey's shims, tools_windows_prefix)
# a drive's root (C:\\) or a UNC share (\\\\server\\share)
ABSOLUTE_PATH_RE = re.compile(r'^([A-Za-z]:[\\/]|\\\\)')
BIN_DIRS = ('C:\\ProgramData\\chocolatey\\bin', 'C:\\perflab\\bin', 'C:\\perflab\\ethr')

STATS_PROPERTIES = ('Name', 'ReceivedBytes', 'ReceivedUnicastPackets', 'SentBytes', 'SentUnicastPackets')

# One process with a timeout (its whole tree is killed when it is exceeded), stdout and stderr
# kept apart, and - with Adapter - Get-NetAdapterStatistics read just before and just after it.
RUN_PS = r'''[CmdletBinding(SupportsShouldProcess = $true)]
param (
    [Parameter(Mandatory = $true)][string]$FilePath,
    [string]$Arguments = '',
    [Parameter(Mandatory = $true)][int]$TimeoutSeconds,
    [string]$Adapter = ''
)
$ErrorActionPreference = 'Stop'
$Ansible.Changed = $false
function Get-Counters {
    if (-not $Adapter) { return '' }
    Get-NetAdapterStatistics -Name $Adapter |
        Format-Table -Property @('Name', 'ReceivedBytes', 'ReceivedUnicastPackets', 'SentBytes', 'SentUnicastPackets') -AutoSize |
        Out-String -Width 4096
}
$psi = New-Object -TypeName System.Diagnostics.ProcessStartInfo -ArgumentList $FilePath
$psi.Arguments = $Arguments
$psi.UseShellExecute = $false
$psi.CreateNoWindow = $true
$psi.RedirectStandardOutput = $true
$psi.RedirectStandardError = $true
$before = Get-Counters
$clock = [System.Diagnostics.Stopwatch]::StartNew()
$started = [DateTime]::UtcNow
$proc = [System.Diagnostics.Process]::Start($psi)
$stdout = $proc.StandardOutput.ReadToEndAsync()
$stderr = $proc.StandardError.ReadToEndAsync()
$timedOut = -not $proc.WaitForExit($TimeoutSeconds * 1000)
if ($timedOut) {
    & taskkill.exe /T /F /PID $proc.Id | Out-Null
    $proc.WaitForExit()
}
$ended = [DateTime]::UtcNow
$elapsed = $clock.Elapsed.TotalSeconds
$after = Get-Counters
$Ansible.Result = @{
    rc = if ($timedOut) { $null } else { $proc.ExitCode }
    stdout = $stdout.Result
    stderr = $stderr.Result
    timed_out = $timedOut
    started_at = $started.ToString('yyyy-MM-ddTHH:mm:ss.fffZ')
    ended_at = $ended.ToString('yyyy-MM-ddTHH:mm:ss.fffZ')
    elapsed_s = $elapsed
    pid = $proc.Id
    counters_before = $before
    counters_after = $after
}
'''

# PATH's Name (Get-Command), else the first of Dirs\Name that exists (the order where.exe and the plan use), else null.
WHICH_PS = r'''[CmdletBinding(SupportsShouldProcess = $true)]
param (
    [Parameter(Mandatory = $true)][string]$Name,
    [string[]]$Dirs = @()
)
$Ansible.Changed = $false
$found = $null
if ([System.IO.Path]::IsPathRooted($Name)) {
    if (Test-Path -LiteralPath $Name -PathType Leaf) { $found = $Name }
} else {
    $command = Get-Command -Name $Name -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($command) { $found = $command.Source }
    foreach ($dir in $Dirs) {
        foreach ($candidate in @((Join-Path $dir $Name), (Join-Path $dir ($Name + '.exe')))) {
            if (-not $found -and (Test-Path -LiteralPath $candidate -PathType Leaf)) { $found = $candidate }
        }
    }
}
$Ansible.Result = @{ path = $found }
'''

# The adapters (Get-NetAdapter names) and the IPv4 MTU of one.
ADAPTERS_PS = r'''[CmdletBinding(SupportsShouldProcess = $true)]
param ([string]$Adapter = '')
$Ansible.Changed = $false
$names = @(Get-NetAdapter | ForEach-Object { $_.Name })
$mtu = $null
if ($Adapter -and ($names -contains $Adapter)) {
    $mtu = (Get-NetIPInterface -InterfaceAlias $Adapter -AddressFamily IPv4 -ErrorAction SilentlyContinue |
            Select-Object -First 1).NlMtu
}
$Ansible.Result = @{ names = $names; mtu = $mtu }
'''

# A server started outside the WinRM shell's job (Win32_Process Create: the shell's job would kill it
# when the task ends), with its pid in PidFile once Port listens and belongs to it.
SERVER_START_PS = r'''[CmdletBinding()]
param (
    [Parameter(Mandatory = $true)][string]$CommandLine,
    [Parameter(Mandatory = $true)][string]$PidFile,
    [Parameter(Mandatory = $true)][int]$Port,
    [Parameter(Mandatory = $true)][int]$ReadyTimeout
)
$ErrorActionPreference = 'Stop'
$dir = Split-Path -Parent $PidFile
if (-not (Test-Path -LiteralPath $dir)) { New-Item -ItemType Directory -Path $dir | Out-Null }
$created = Invoke-CimMethod -ClassName Win32_Process -MethodName Create -Arguments @{ CommandLine = $CommandLine }
if ($created.ReturnValue -ne 0) { throw "Win32_Process Create returned $($created.ReturnValue) for: $CommandLine" }
$serverPid = [int]$created.ProcessId
Set-Content -LiteralPath $PidFile -Value $serverPid
$Ansible.Changed = $true
$deadline = (Get-Date).AddSeconds($ReadyTimeout)
$ready = $false
while (-not $ready -and (Get-Date) -lt $deadline) {
    if (-not (Get-Process -Id $serverPid -ErrorAction SilentlyContinue)) { break }
    $owners = @(Get-NetTCPConnection -LocalPort $Port -State Listen -ErrorAction SilentlyContinue |
                ForEach-Object { $_.OwningProcess })
    if ($owners -contains $serverPid) { $ready = $true } else { Start-Sleep -Milliseconds 100 }
}
if (-not $ready) {
    & taskkill.exe /T /F /PID $serverPid | Out-Null
    Remove-Item -LiteralPath $PidFile -ErrorAction SilentlyContinue
}
$Ansible.Result = @{ pid = $serverPid; ready = $ready; alive = [bool](Get-Process -Id $serverPid -ErrorAction SilentlyContinue) }
'''

# Stop (or, with Stop false, only look at) the server of PidFile: its whole process tree.
SERVER_STOP_PS = r'''[CmdletBinding()]
param (
    [Parameter(Mandatory = $true)][string]$PidFile,
    [bool]$Stop = $true
)
$Ansible.Changed = $false
$serverPid = $null
if (Test-Path -LiteralPath $PidFile) { $serverPid = [int](Get-Content -LiteralPath $PidFile -TotalCount 1) }
$alive = $serverPid -and [bool](Get-Process -Id $serverPid -ErrorAction SilentlyContinue)
$left = $false
if ($Stop -and $alive) {
    & taskkill.exe /T /F /PID $serverPid | Out-Null
    Start-Sleep -Milliseconds 200
    $left = [bool](Get-Process -Id $serverPid -ErrorAction SilentlyContinue)
    $Ansible.Changed = $true
}
if ($Stop -and -not $left -and (Test-Path -LiteralPath $PidFile)) { Remove-Item -LiteralPath $PidFile }
$Ansible.Result = @{ pid = $serverPid; alive = $alive; left = $left }
'''

# The pidfile names in Dir (bench_server's TOOL-PORT.pid).
PIDFILES_PS = r'''[CmdletBinding(SupportsShouldProcess = $true)]
param ([Parameter(Mandatory = $true)][string]$Dir)
$Ansible.Changed = $false
$names = @()
if (Test-Path -LiteralPath $Dir) { $names = @(Get-ChildItem -LiteralPath $Dir -Filter '*.pid' | ForEach-Object { $_.Name }) }
$Ansible.Result = @{ names = $names }
'''

# The system table's CIM classes, each as Format-List text under a "### class" line.
CIM_CLASSES = (
    ('Win32_Processor', ('Name', 'NumberOfCores', 'NumberOfLogicalProcessors', 'MaxClockSpeed')),
    ('Win32_BaseBoard', ('Manufacturer', 'Product', 'Version')),
    ('Win32_PhysicalMemory', ('Manufacturer', 'PartNumber', 'Capacity', 'Speed', 'DeviceLocator')),
    ('Win32_DiskDrive', ('Model', 'Size', 'InterfaceType')),
    ('Win32_NetworkAdapter', ('Name', 'NetConnectionID', 'Speed', 'ServiceName', 'PhysicalAdapter')),
    ('Win32_OperatingSystem', ('Caption', 'Version', 'BuildNumber', 'OSArchitecture')),
)
PROFILE_PS = r'''[CmdletBinding(SupportsShouldProcess = $true)]
param ([string]$Adapter = '')
$Ansible.Changed = $false
$classes = [ordered]@{
''' + ''.join("    '%s' = @(%s)\n" % (name, ', '.join("'%s'" % prop for prop in props)) for name, props in CIM_CLASSES) + r'''}
$text = foreach ($class in $classes.Keys) {
    '### ' + $class
    $items = Get-CimInstance -ClassName $class
    if ($class -eq 'Win32_NetworkAdapter') { $items = $items | Where-Object { $_.PhysicalAdapter -or $_.NetConnectionID -eq $Adapter } }
    $items | Format-List -Property $classes[$class] | Out-String -Width 4096
}
$system = (Get-CimInstance -ClassName Win32_OperatingSystem).SystemDrive
$fs = (Get-CimInstance -ClassName Win32_LogicalDisk -Filter "DeviceID='$system'").FileSystem
$mtu = $null
if ($Adapter) { $mtu = (Get-NetIPInterface -InterfaceAlias $Adapter -AddressFamily IPv4 -ErrorAction SilentlyContinue | Select-Object -First 1).NlMtu }
$Ansible.Result = @{ cim = ($text -join "`n"); file_system = $fs; mtu = $mtu }
'''


def valid_adapter_name(name):
    return bool(name) and bool(_ADAPTER_RE.match(name))


def command_line(argv):
    """argv -> one Windows command line (the C runtime's rules: what CreateProcess' callee splits back)."""
    return subprocess.list2cmdline([str(arg) for arg in argv])


def run_parameters(argv, timeout, adapter=None):
    """win_powershell ``parameters`` of RUN_PS for ``argv``."""
    return {'FilePath': str(argv[0]), 'Arguments': command_line(argv[1:]), 'TimeoutSeconds': int(timeout),
            'Adapter': adapter or ''}


def ping_argv(address, wait, size=None):
    """One echo request, waiting ``wait`` s (Windows' -w is in milliseconds); ``-6`` for IPv6.

    With ``size`` (payload bytes), a don't-fragment probe: ``-f`` (IPv4 only: Windows' ping has no such
    option for IPv6, so an IPv6 probe is not made, ValueError) and ``-l`` the payload.
    """
    if size and ':' in address:
        raise ValueError("Windows' ping cannot forbid fragmenting an IPv6 probe (%s)" % address)
    probe = ['-f', '-l', str(int(size))] if size else []
    return ['ping'] + (['-6'] if ':' in address else []) + ['-n', '1', '-w', str(int(wait) * 1000)] + probe + [address]


def ping_answered(rc, stdout, address):
    """Windows' ping exits 0 on "Destination host unreachable" from a router too: an IPv4 answer has TTL=."""
    if rc != 0:
        return False
    return ':' in address or 'TTL=' in (stdout or '')


NETSTAT_ARGV = ['netstat', '-ano']


def parse_netstat_ano(text):
    """``netstat -ano`` -> ``[{proto, address, port, pid}]`` of the listeners.

    Read by shape, not by the State column (localized): a TCP row whose foreign address is the
    zero endpoint (0.0.0.0:0, [::]:0), a UDP row whose foreign address is ``*:*``.
    """
    out = []
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[0] not in ('TCP', 'UDP'):
            continue
        local, foreign = fields[1], fields[2]
        if fields[0] == 'TCP' and foreign not in ('0.0.0.0:0', '[::]:0'):
            continue
        if fields[0] == 'UDP' and foreign != '*:*':
            continue
        address, _sep, port = local.rpartition(':')
        if not port.isdigit():
            continue
        pid = int(fields[-1]) if fields[-1].isdigit() else None
        out.append({'proto': fields[0].lower(), 'address': address.strip('[]'), 'port': int(port), 'pid': pid})
    return out


def listening_ports(sockets):
    return dict((proto, sorted(set(item['port'] for item in sockets if item['proto'] == proto)))
                for proto in ('tcp', 'udp'))


def parse_adapter_statistics(text, name):
    """Get-NetAdapterStatistics' table (Name ReceivedBytes ReceivedUnicastPackets SentBytes SentUnicastPackets)
    -> the four counters of adapter ``name``, None when its row is absent.

    A name can hold spaces ("Ethernet 2"): the four counters are the row's last four fields.
    """
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) < 5 or not all(field.isdigit() for field in fields[-4:]):
            continue
        if ' '.join(fields[:-4]) != ' '.join(name.split()):
            continue
        rx_bytes, rx_packets, tx_bytes, tx_packets = (int(field) for field in fields[-4:])
        return {'rx_bytes': rx_bytes, 'tx_bytes': tx_bytes, 'rx_packets': rx_packets, 'tx_packets': tx_packets}
    return None


def parse_format_list(text):
    """Format-List text (``Name : value``; also wmic's ``Name=value``) -> one dict per object.

    Objects are separated by blank lines; a value Format-List wraps continues on indented lines.
    """
    objects, current, last = [], {}, None
    for line in (text or '').splitlines():
        if not line.strip():
            if current:
                objects.append(current)
            current, last = {}, None
            continue
        match = re.match(r'^([A-Za-z_][A-Za-z0-9_]*)\s*(?: : ?|=)(.*)$', line.rstrip())
        if match and not line.startswith(' '):
            last = match.group(1)
            current[last] = match.group(2).strip()
        elif last and line.startswith(' '):
            current[last] = (current[last] + ' ' + line.strip()).strip()
    if current:
        objects.append(current)
    return objects


def split_sections(text):
    """PROFILE_PS' text -> {class: [objects]}."""
    sections, name, lines = {}, None, []
    for line in (text or '').splitlines():
        if line.startswith('### '):
            if name:
                sections[name] = parse_format_list('\n'.join(lines))
            name, lines = line[4:].strip(), []
        else:
            lines.append(line)
    if name:
        sections[name] = parse_format_list('\n'.join(lines))
    return sections


def _int(value):
    text = (value or '').strip()
    return int(text) if text.isdigit() else None


def windows_table(sections, adapter=None, file_system=None, mtu=None):
    """The system table and network facts (sysprofile's fields and shape) from the CIM objects."""
    table = dict((field, sysprofile.UNKNOWN) for field in sysprofile.TABLE_FIELDS)
    cpus = sections.get('Win32_Processor') or []
    if cpus:
        first = cpus[0]
        cores = sum(_int(cpu.get('NumberOfCores')) or 0 for cpu in cpus) or None
        threads = sum(_int(cpu.get('NumberOfLogicalProcessors')) or 0 for cpu in cpus) or None
        mhz = _int(first.get('MaxClockSpeed'))
        table['Processor'] = sysprofile.format_processor({'model': first.get('Name'), 'sockets': len(cpus),
                                                          'cores': cores, 'threads': threads, 'mhz': mhz})
    boards = sections.get('Win32_BaseBoard') or []
    if boards and (boards[0].get('Manufacturer') or boards[0].get('Product')):
        table['Motherboard'] = ' '.join(part for part in (sysprofile.short_vendor(boards[0].get('Manufacturer', '')),
                                                          boards[0].get('Product', '')) if part)
    modules = []
    for item in sections.get('Win32_PhysicalMemory') or []:
        capacity = _int(item.get('Capacity'))
        if capacity:
            modules.append({'size_mb': capacity // (1024 * 1024), 'type': None, 'speed_mts': _int(item.get('Speed')),
                            'manufacturer': item.get('Manufacturer') or None, 'part': item.get('PartNumber') or None})
    if modules:
        table['Memory'] = sysprofile.format_memory(sum(module['size_mb'] for module in modules) * 1024, modules)
    disks = [{'name': item.get('Model') or 'disk', 'model': item.get('Model') or None, 'size_bytes': _int(item.get('Size'))}
             for item in sections.get('Win32_DiskDrive') or [] if _int(item.get('Size'))]
    if disks:
        table['Disk'] = sysprofile.format_disks(disks)
    systems = sections.get('Win32_OperatingSystem') or []
    if systems:
        table['OS'] = systems[0].get('Caption') or sysprofile.UNKNOWN
        version = systems[0].get('Version')
        table['Kernel'] = sysprofile.format_kernel(version, systems[0].get('OSArchitecture')) if version else \
            sysprofile.UNKNOWN
    if file_system:
        table['File-System'] = file_system
    network = {'interface': adapter, 'mtu': mtu, 'driver': None, 'speed_mbps': None, 'offloads': None,
               'qdisc': None, 'congestion_control': None, 'sysctls': {}}
    if adapter:
        adapters = sections.get('Win32_NetworkAdapter') or []
        match = next((item for item in adapters if item.get('NetConnectionID') == adapter), None)
        enabled = [item for item in adapters if (item.get('NetEnabled') or '').upper() == 'TRUE']
        if match is None and len(enabled) == 1:
            match = enabled[0]   # the one enabled adapter (an output without NetConnectionID)
        if match:
            speed = _int(match.get('Speed'))
            network['speed_mbps'] = speed // 1000000 if speed else None
            network['driver'] = match.get('ServiceName') or None
            table['Network'] = sysprofile.format_network(match.get('Name'), network['driver'], network['speed_mbps'])
    return {'table': table, 'network': network}


def process_result(argv, result):
    """RUN_PS' $Ansible.Result -> a ProcessResult (what the tool parsers read)."""
    return ProcessResult(argv, rc=result.get('rc'), stdout=result.get('stdout') or '', stderr=result.get('stderr') or '',
                         timed_out=bool(result.get('timed_out')), started_at=result.get('started_at'),
                         ended_at=result.get('ended_at'), elapsed_s=float(result.get('elapsed_s') or 0.0),
                         pid=result.get('pid'))


class WindowsNicSampler(object):
    """Two samples of Get-NetAdapterStatistics, just before and just after the client (read by RUN_PS).

    Windows' counters are read in the same script that runs the client, so the window is the
    process' own; there are no samples in between (the rate is over the whole run).
    """

    def __init__(self, host, interface, peer=None):
        self.host = host
        self.interface = interface
        self.samples = []
        self._error = None
        self.peer = peer

    def limits(self):
        """What Windows' samples give for limits.verdict: nothing beyond the byte counters (yet)."""
        if self.peer is None:
            return None
        return {'not_sampled': ['Windows: per-core CPU, the TCP connections\' state and the adapter\'s discard '
                                'and error counters are not sampled (only Get-NetAdapterStatistics\' bytes)']}

    def __enter__(self):
        self.host.sampling = self
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.host.sampling = None
        return False

    def record(self, before_text, after_text, elapsed):
        before = parse_adapter_statistics(before_text, self.interface)
        after = parse_adapter_statistics(after_text, self.interface)
        if before is None or after is None:
            self._error = 'Get-NetAdapterStatistics listed no adapter %s' % self.interface
            return
        self.samples = [dict(before, t=0.0), dict(after, t=round(float(elapsed), 3))]

    def elapsed(self):
        return self.samples[-1]['t'] if self.samples else None

    def result(self, window=None):
        rx_mbps, tx_mbps, used = nic.window_rates(self.samples, window)
        result = {'interface': self.interface, 'samples': list(self.samples), 'rx_mbps': rx_mbps,
                  'tx_mbps': tx_mbps, 'window': used}
        if self._error:
            result['error'] = self._error
        return result


class WindowsHost(object):
    """The runner's host for a Windows target: ``execute(script, parameters)`` runs win_powershell there.

    ``execute`` returns win_powershell's result (``result`` is the script's $Ansible.Result); it raises
    on a failed task. One process at a time (``run_many`` is refused: the action plugin says so first).
    """

    name = 'Windows'
    interface_name_rule = ADAPTER_RULE

    def __init__(self, execute):
        self.execute = execute
        self.sampling = None
        self._adapters = None

    @staticmethod
    def valid_interface_name(name):
        return valid_adapter_name(name)

    def _adapter_facts(self, name=''):
        return self.execute(ADAPTERS_PS, {'Adapter': name or ''}).get('result') or {}

    def existing_interfaces(self):
        if self._adapters is None:
            self._adapters = sorted(self._adapter_facts().get('names') or [])
        return self._adapters

    def interface_exists(self, name):
        return valid_adapter_name(name) and name in self.existing_interfaces()

    def interface_mtu(self, name):
        return self._adapter_facts(name).get('mtu') if valid_adapter_name(name) else None

    @staticmethod
    def interface_speed_mbps(name):
        """Not read on Windows (the adapter facts hold no speed): None; give the test link_mbps."""
        return None

    def nic_sampler(self, name, interval=1.0, peer=None):
        return WindowsNicSampler(self, name, peer)

    @staticmethod
    def path_is_absolute(path):
        return bool(ABSOLUTE_PATH_RE.match(path or ''))

    @staticmethod
    def search_dirs(tool_paths=None):
        """The folders searched after PATH: ``tool_paths`` (benchmark_windows_tool_paths), then BIN_DIRS; each once."""
        dirs = []
        for directory in list(tool_paths or []) + list(BIN_DIRS):
            if directory not in dirs:
                dirs.append(directory)
        return ['PATH'] + dirs

    def which(self, name, tool_paths=None):
        """The tool's path (PATH first, then search_dirs' folders: the order where.exe and the plan use), else None."""
        dirs = self.search_dirs(tool_paths)[1:]
        return (self.execute(WHICH_PS, {'Name': name, 'Dirs': dirs}).get('result') or {}).get('path')

    def run(self, argv, timeout):
        sampler = self.sampling
        parameters = run_parameters(argv, timeout, sampler.interface if sampler else None)
        result = self.execute(RUN_PS, parameters).get('result') or {}
        if sampler is not None:
            sampler.record(result.get('counters_before'), result.get('counters_after'), result.get('elapsed_s') or 0)
        return process_result(argv, result)

    @staticmethod
    def run_many(argvs, timeout):
        raise ValueError('processes > 1 is not supported on Windows hosts (one client process per test)')
