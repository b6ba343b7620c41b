# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# perflab.network firewall role, Windows backend (run by ansible.windows.win_powershell).
# present: the inbound allow rules of the group $Group are exactly $Rules (New-NetFirewallRule
#          with -RemoteAddress, so only the peers get in);
# absent:  every rule of the group $Group that this script added is removed.
# A rule is ours only when it is in the group AND carries our description ($Marker): a user's rule
# put in a group of the same name is never changed or removed.
# disabled: the profiles' Enabled flags are saved to $StateDir, then all profiles are disabled;
# restored: the saved flags are set back.
[CmdletBinding(SupportsShouldProcess)]
param (
    [Parameter(Mandatory)][ValidateSet('present', 'absent', 'disabled', 'restored')][string]$State,
    [Parameter(Mandatory)][ValidatePattern('^[A-Za-z0-9._-]{1,32}$')][string]$Group,
    [Parameter(Mandatory)][string]$StateDir,
    # each: @{ name = 'perflab tcp 10.206.1.12'; protocol = 'TCP'; local_port = @('5201-5204', '12865'); remote_address = '10.206.1.12' }
    [object[]]$Rules = @()
)

$ErrorActionPreference = 'Stop'
$Ansible.Changed = $false
$profileFile = Join-Path $StateDir 'profiles.json'
$Marker = "added by the perflab.network firewall role ($Group)"

function Get-OurRule {
    @(Get-NetFirewallRule -Group $Group -ErrorAction SilentlyContinue | Where-Object { $_.Description -eq $Marker })
}

function Get-RuleKey($Name, $Protocol, $LocalPort, $RemoteAddress) {
    '{0}|{1}|{2}|{3}' -f $Name, $Protocol.ToUpper(), (@($LocalPort) -join ','), (@($RemoteAddress) -join ',')
}

switch ($State) {
    'present' {
        $wanted = @{}
        foreach ($rule in $Rules) {
            $wanted[(Get-RuleKey $rule.name $rule.protocol $rule.local_port $rule.remote_address)] = $rule
        }
        $have = @{}
        foreach ($existing in (Get-OurRule)) {
            $port = $existing | Get-NetFirewallPortFilter
            $address = $existing | Get-NetFirewallAddressFilter
            $key = Get-RuleKey $existing.DisplayName $port.Protocol $port.LocalPort $address.RemoteAddress
            if ($wanted.ContainsKey($key) -and -not $have.ContainsKey($key)) {
                $have[$key] = $existing
            }
            elseif ($PSCmdlet.ShouldProcess($existing.DisplayName, 'Remove-NetFirewallRule')) {
                $existing | Remove-NetFirewallRule
                $Ansible.Changed = $true
            }
            else {
                $Ansible.Changed = $true
            }
        }
        foreach ($key in $wanted.Keys) {
            if ($have.ContainsKey($key)) { continue }
            $rule = $wanted[$key]
            $Ansible.Changed = $true
            if ($PSCmdlet.ShouldProcess($rule.name, 'New-NetFirewallRule')) {
                $null = New-NetFirewallRule -DisplayName $rule.name -Group $Group -Description $Marker -Direction Inbound -Action Allow `
                    -Protocol $rule.protocol -LocalPort @($rule.local_port) -RemoteAddress @($rule.remote_address) `
                    -Profile Any -Enabled True
            }
        }
    }
    'absent' {
        $existing = Get-OurRule
        if ($existing.Count -gt 0) {
            $Ansible.Changed = $true
            if ($PSCmdlet.ShouldProcess($Group, 'Remove-NetFirewallRule -Group')) {
                $existing | Remove-NetFirewallRule
            }
        }
    }
    'disabled' {
        $profiles = @(Get-NetFirewallProfile)
        if (-not (Test-Path -LiteralPath $profileFile) -and $PSCmdlet.ShouldProcess($profileFile, 'save the profiles')) {
            $null = New-Item -ItemType Directory -Force -Path $StateDir
            $profiles | ForEach-Object { @{ name = $_.Name; enabled = [bool]($_.Enabled -eq 'True') } } |
                ConvertTo-Json | Set-Content -LiteralPath $profileFile -Encoding UTF8
        }
        $on = @($profiles | Where-Object { $_.Enabled -eq 'True' })
        if ($on.Count -gt 0) {
            $Ansible.Changed = $true
            if ($PSCmdlet.ShouldProcess('all profiles', 'Set-NetFirewallProfile -Enabled False')) {
                Set-NetFirewallProfile -Profile $on.Name -Enabled False
            }
        }
    }
    'restored' {
        if (Test-Path -LiteralPath $profileFile) {
            foreach ($saved in @(Get-Content -LiteralPath $profileFile -Raw | ConvertFrom-Json)) {
                $current = Get-NetFirewallProfile -Name $saved.name
                $now = [bool]($current.Enabled -eq 'True')
                if ($now -ne [bool]$saved.enabled) {
                    $Ansible.Changed = $true
                    if ($PSCmdlet.ShouldProcess($saved.name, 'Set-NetFirewallProfile')) {
                        Set-NetFirewallProfile -Name $saved.name -Enabled ([bool]$saved.enabled)
                    }
                }
            }
            if ($PSCmdlet.ShouldProcess($profileFile, 'Move-Item')) {
                Move-Item -LiteralPath $profileFile -Destination "$profileFile.restored" -Force
                $Ansible.Changed = $true
            }
        }
    }
}
