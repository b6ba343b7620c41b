# The collection's one Windows snapshot writer (perflab.network.host_safety, entry point snapshot).
# Adds to the JSON object at $Path the keys of $Header and $Values it does not hold yet: add-only, a
# recorded stock value is never overwritten, and the file is on disk before the caller's first change.
# The caller reads $Values (what it is about to change) with its own thin PowerShell first.
param([string]$Path, [hashtable]$Values, [hashtable]$Header)
$Ansible.Changed = $false
$stock = [ordered]@{}
if (Test-Path -LiteralPath $Path) {
    (Get-Content -LiteralPath $Path -Raw | ConvertFrom-Json).PSObject.Properties | ForEach-Object { $stock[$_.Name] = $_.Value }
}
$added = @()
foreach ($part in @($Header, $Values)) {
    if (-not $part) { continue }
    foreach ($key in $part.Keys) {
        if (-not $stock.Contains($key)) { $stock[$key] = $part[$key]; $added += $key }
    }
}
if ($added.Count -gt 0) {
    if (-not $Ansible.CheckMode) {
        New-Item -ItemType Directory -Force -Path (Split-Path -Parent $Path) | Out-Null
        $stock | ConvertTo-Json | Set-Content -LiteralPath $Path -Encoding UTF8
    }
    $Ansible.Changed = $true
}
@{ added = $added }
