# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# perflab.network bonding role, Windows stack (run by ansible.windows.win_powershell).
# Method lbfo: an LBFO team (New-NetLbfoTeam); method set: a Hyper-V switch with Switch
# Embedded Teaming (New-VMSwitch -EnableEmbeddedTeaming), whose host vNIC carries the address.
# The role maps the bonding mode and hash policy to TeamingMode/Algorithm/Standby.
[CmdletBinding(SupportsShouldProcess)]
param (
    [Parameter(Mandatory)][ValidateSet('present', 'absent')][string]$State,
    [Parameter(Mandatory)][string]$Name,
    [ValidateSet('lbfo', 'set')][string]$Method = 'lbfo',
    [string[]]$Members = @(),
    [ValidateSet('SwitchIndependent', 'Static', 'Lacp')][string]$TeamingMode = 'SwitchIndependent',
    [ValidateSet('Dynamic', 'TransportPorts', 'IPAddresses', 'MacAddresses', 'HyperVPort')][string]$Algorithm = 'Dynamic',
    [bool]$Standby = $false,
    [int]$Mtu = 0,
    [string]$Address = '',
    [bool]$Apply = $true
)

$ErrorActionPreference = 'Stop'
$Ansible.Changed = $false

function Set-Changed([string]$What) {
    $Ansible.Changed = $true
    $PSCmdlet.ShouldProcess($Name, $What)
}

if ($State -eq 'absent') {
    if ($Method -eq 'lbfo') {
        if (Get-NetLbfoTeam -Name $Name -ErrorAction SilentlyContinue) {
            if (Set-Changed 'Remove-NetLbfoTeam') { Remove-NetLbfoTeam -Name $Name -Confirm:$false }
        }
    }
    elseif (Get-VMSwitch -Name $Name -ErrorAction SilentlyContinue) {
        if (Set-Changed 'Remove-VMSwitch') { Remove-VMSwitch -Name $Name -Force }
    }
    return
}

foreach ($member in $Members) {
    if (-not (Get-NetAdapter -Name $member -ErrorAction SilentlyContinue)) {
        throw "no network adapter named $member"
    }
}

if ($Method -eq 'lbfo') {
    $team = Get-NetLbfoTeam -Name $Name -ErrorAction SilentlyContinue
    if (-not $team) {
        if (Set-Changed 'New-NetLbfoTeam') {
            $null = New-NetLbfoTeam -Name $Name -TeamMembers $Members -TeamingMode $TeamingMode `
                -LoadBalancingAlgorithm $Algorithm -Confirm:$false
        }
    }
    else {
        if ($team.TeamingMode -ne $TeamingMode -or $team.LoadBalancingAlgorithm -ne $Algorithm) {
            if (Set-Changed 'Set-NetLbfoTeam') {
                Set-NetLbfoTeam -Name $Name -TeamingMode $TeamingMode -LoadBalancingAlgorithm $Algorithm
            }
        }
        $have = @(Get-NetLbfoTeamMember -Team $Name | ForEach-Object Name)
        foreach ($member in $Members | Where-Object { $have -notcontains $_ }) {
            if (Set-Changed "Add-NetLbfoTeamMember $member") { Add-NetLbfoTeamMember -Name $member -Team $Name -Confirm:$false }
        }
        foreach ($member in $have | Where-Object { $Members -notcontains $_ }) {
            if (Set-Changed "Remove-NetLbfoTeamMember $member") { Remove-NetLbfoTeamMember -Name $member -Team $Name -Confirm:$false }
        }
    }
    # active-backup: the members after the first are standby adapters
    for ($i = 1; $i -lt $Members.Count; $i++) {
        $wanted = if ($Standby) { 'Standby' } else { 'Active' }
        $member = Get-NetLbfoTeamMember -Name $Members[$i] -Team $Name -ErrorAction SilentlyContinue
        if ($member -and $member.AdministrativeMode -ne $wanted) {
            if (Set-Changed "Set-NetLbfoTeamMember $($Members[$i]) $wanted") {
                Set-NetLbfoTeamMember -Name $Members[$i] -AdministrativeMode $wanted
            }
        }
    }
    $interface = $Name
}
else {
    $switch = Get-VMSwitch -Name $Name -ErrorAction SilentlyContinue
    if (-not $switch) {
        if (Set-Changed 'New-VMSwitch -EnableEmbeddedTeaming') {
            $null = New-VMSwitch -Name $Name -NetAdapterName $Members -EnableEmbeddedTeaming $true -AllowManagementOS $true
        }
    }
    $teaming = Get-VMSwitchTeam -Name $Name -ErrorAction SilentlyContinue
    if ($teaming -and $teaming.LoadBalancingAlgorithm -ne $Algorithm) {
        if (Set-Changed 'Set-VMSwitchTeam') { Set-VMSwitchTeam -Name $Name -LoadBalancingAlgorithm $Algorithm }
    }
    $interface = "vEthernet ($Name)"
}

if ($Mtu -gt 0) {
    # *JumboPacket counts the Ethernet header: 9000 -> 9014
    $jumbo = [string]($Mtu + 14)
    foreach ($member in $Members) {
        $property = Get-NetAdapterAdvancedProperty -Name $member -RegistryKeyword '*JumboPacket' -ErrorAction SilentlyContinue
        if ($property -and $property.RegistryValue -ne $jumbo) {
            if (Set-Changed "*JumboPacket=$jumbo on $member") {
                Set-NetAdapterAdvancedProperty -Name $member -RegistryKeyword '*JumboPacket' -RegistryValue $jumbo
            }
        }
    }
}

if ($Address -and $Apply) {
    $ip, $prefix = $Address.Split('/')
    $present = Get-NetIPAddress -InterfaceAlias $interface -IPAddress $ip -ErrorAction SilentlyContinue
    if (-not $present) {
        if (Set-Changed "New-NetIPAddress $Address") {
            Set-NetIPInterface -InterfaceAlias $interface -Dhcp Disabled -ErrorAction SilentlyContinue
            $null = New-NetIPAddress -InterfaceAlias $interface -IPAddress $ip -PrefixLength ([int]$prefix)
        }
    }
}
